/// What a fetch depends on: the tables its statements read, or, when they cannot be known,
/// the whole database.
enum ObservedRegion: Sendable, Hashable {
    case region(DatabaseRegion)
    /// Any commit may change the value: used before the first fetch, after a failed one, and
    /// for `FetchKeyRequest`s, whose statements the connection does not report.
    case everything

    func isModified(by changes: DatabaseChanges) -> Bool {
        switch self {
        case .everything: return !changes.isEmpty
        case .region(let region): return region.isModified(by: changes)
        }
    }
}
