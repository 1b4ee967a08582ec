/// What can go wrong while a ``SharedReader`` loads, whatever its database, besides the errors
/// the database itself reports.
///
/// ```swift
/// if case .noRow? = $count.loadError as? LiveQueryError { … }
/// ```
public enum LiveQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A `fetchOne` key of a non-optional type found no row.
    case noRow(sql: String)
    /// `load()` was called on a reader that was never given a key.
    case noKey

    public var description: String {
        switch self {
        case .noRow(let sql):
            return
                "the query returned no row, and the value is not optional (use an optional type to allow none)\n  SQL: \(sql)"
        case .noKey:
            return "this reader has no key to reload: call load(_:) with a key first"
        }
    }
}
