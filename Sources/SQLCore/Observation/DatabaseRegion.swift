/// The tables and columns a statement reads, recorded by SQLite's authorizer when the statement
/// is prepared.
///
/// ```swift
/// let statement = try db.cachedStatement("SELECT title FROM items WHERE done = 0")
/// statement.readRegion   // items(done, title)
/// ```
///
/// Table and column names have their ASCII letters lowercased, because SQLite matches names
/// ignoring the case of ASCII letters (and only of those). A table read without
/// naming columns (`SELECT count(*) FROM items`) counts as read whole.
///
/// It is also what a live query reads, whatever its database: ``everything`` when that cannot be
/// known (before the query's first fetch, after a failed one).
public struct DatabaseRegion: Hashable, Sendable, CustomStringConvertible {
    /// Columns read in a table: some of them, or all (the whole table).
    public enum Columns: Hashable, Sendable {
        /// Every column: the whole table.
        case all
        /// Only these columns.
        case only(Set<String>)
    }

    /// Table name (ASCII-lowercased) → the columns read (ASCII-lowercased).
    public private(set) var tables: [String: Columns] = [:]

    /// Table name (ASCII-lowercased) → the part of it read, for the tables whose changed rows can be
    /// tested one by one (see `Database.recordingReadRegion(scopingRows:_:)` (SQLite)). A table read
    /// and missing here is read whole.
    public package(set) var rowScopes: [String: RowScope] = [:]

    /// True for ``everything``: every table, whether named here or not.
    public private(set) var isEverything = false

    /// An empty region: a statement that reads no table, such as `SELECT 1`.
    public init() {}

    /// Every table: what a query reads when which tables cannot be known. Any change modifies it.
    public static let everything: DatabaseRegion = {
        var region = DatabaseRegion()
        region.isEverything = true
        return region
    }()

    /// A region made of whole tables.
    public init(tables: some Sequence<String>) {
        for table in tables { insert(table: table, column: nil) }
    }

    /// True when no table is read.
    public var isEmpty: Bool { tables.isEmpty && !isEverything }

    /// Adds a table, or one of its columns (nil or an empty name means the whole table).
    public mutating func insert(table: String, column: String?) {
        let table = table.sqliteFolded
        rowScopes.removeValue(forKey: table)
        guard let column, !column.isEmpty else {
            tables[table] = .all
            return
        }
        switch tables[table] {
        case .all: break
        case .only(var columns):
            columns.insert(column.sqliteFolded)
            tables[table] = .only(columns)
        case nil:
            tables[table] = .only([column.sqliteFolded])
        }
    }

    /// The union of two regions.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        if isEverything || other.isEverything { return .everything }
        var result = self
        for (table, columns) in other.tables {
            switch (result.tables[table], columns) {
            case (nil, _): result.tables[table] = columns
            case (.all, _), (_, .all): result.tables[table] = .all
            case (.only(let mine), .only(let theirs)): result.tables[table] = .only(mine.union(theirs))
            }
            // A table read in rows by one side and whole by the other is read whole.
            if let mine = rowScopes[table], let theirs = other.rowScopes[table] {
                result.rowScopes[table] = mine.union(theirs)
            } else if tables[table] != nil || other.rowScopes[table] == nil {
                result.rowScopes.removeValue(forKey: table)
            } else {
                result.rowScopes[table] = other.rowScopes[table]
            }
        }
        return result
    }

    public var description: String {
        if isEverything { return "everything" }
        if tables.isEmpty { return "empty" }
        return tables.keys.sorted().map { table in
            switch tables[table]! {
            case .all: return table
            case .only(let columns): return "\(table)(\(columns.sorted().joined(separator: ", ")))"
            }
        }.joined(separator: ", ")
    }
}
