/// What a fetch depends on: the tables its statements read, or, when they cannot be known,
/// the whole database.
package enum ObservedRegion: Sendable, Hashable {
    case region(DatabaseRegion)
    /// Any commit may change the value: used before the first fetch, and after a failed one.
    case everything
}
