import Locking

/// The database that keys read from when they name none, set once per process.
///
/// ```swift
/// try DefaultDatabase.set(try DatabasePool(path: "app.sqlite"))   // at startup
/// @SharedReader(.fetchAll("SELECT * FROM items")) var items: [Item]
/// ```
///
/// Reading before it is set does not crash: the reader's `loadError` becomes
/// ``SharingSQLiteError/noDatabase``.
public enum DefaultDatabase {
    static let slot = DefaultDatabaseSlot()

    /// Sets the default database. Throws ``SharingSQLiteError/defaultDatabaseAlreadySet`` when
    /// called again, because readers already attached to the first one would silently disagree.
    public static func set(_ database: any DatabaseWriter) throws {
        try slot.set(database)
    }

    /// The default database, or `nil` before ``set(_:)``.
    public static var current: (any DatabaseWriter)? { slot.current }
}

/// Holds one database, settable once. A type of its own so that tests can use a fresh one
/// without touching the process-wide default.
final class DefaultDatabaseSlot: Sendable {
    private let database = Lock<(any DatabaseWriter)?>(nil)

    func set(_ writer: any DatabaseWriter) throws {
        try database.withLock { database in
            guard database == nil else { throw SharingSQLiteError.defaultDatabaseAlreadySet }
            database = writer
        }
    }

    var current: (any DatabaseWriter)? { database.withLock { $0 } }
}
