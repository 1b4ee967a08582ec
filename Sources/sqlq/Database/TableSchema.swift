import SQLite

/// A table's (or view's) columns as the schema declares them, read once per command: names are
/// checked against it, and values against the columns' types.
struct TableSchema {
    /// How SQLite treats a column's values, from its declared type (SQLite's rules, section 3.1
    /// of "Datatypes In SQLite").
    enum Affinity: Equatable {
        case integer
        case real
        case numeric
        case text
        /// No declared type, or BLOB: values are kept as given.
        case blob

        init(declaredType: String) {
            let type = declaredType.uppercased()
            // Searched as bytes, as SQLite searches them: the standard library's
            // `contains(_:)` on strings costs tens of thousands of instructions a call, a
            // measurable part of sqlq's start-up.
            func contains(_ word: String) -> Bool { type.utf8Range(of: word) != nil }
            if contains("INT") {
                self = .integer
            } else if contains("CHAR") || contains("CLOB") || contains("TEXT") {
                self = .text
            } else if type.isEmpty || contains("BLOB") {
                self = .blob
            } else if contains("REAL") || contains("FLOA") || contains("DOUB") {
                self = .real
            } else {
                self = .numeric
            }
        }

        /// Declared as a number type: only numbers make sense in it. (`NUMERIC`, `DATE` and other
        /// types with numeric affinity hold text such as dates just as well, so they are not.)
        var holdsNumbers: Bool { self == .integer || self == .real }
    }

    struct ColumnInfo {
        let name: String
        let declaredType: String
        let affinity: Affinity
        /// A generated column (`AS (…)`): it can be read and filtered, never written.
        var isGenerated = false
    }

    /// The name as the schema spells it.
    let name: String
    let columns: [ColumnInfo]

    /// Reads the schema of `table`, or throws `SchemaError` (with the closest name) when the
    /// database has no such table or view.
    init(_ db: Database, table: String) throws {
        name = try db.checkTable(table)
        // table_xinfo, unlike table_info, lists generated columns (hidden 2 and 3); the hidden
        // columns of virtual tables (1) stay hidden, as `SELECT *` hides them.
        columns = try db.fetchAll(
            "SELECT name, type, hidden FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", [.text(name)]
        ).map { row in
            let type: String = try row[1]
            let hidden: Int = try row[2]
            return ColumnInfo(
                name: try row[0], declaredType: type, affinity: Affinity(declaredType: type), isGenerated: hidden != 0)
        }
    }

    /// The column named `name` (exactly, or ignoring case as SQL does), or the `SchemaError` of
    /// the SQLite module, which lists the columns and suggests the closest.
    func column(_ name: String, in db: Database) throws -> ColumnInfo {
        if let column = columns.first(where: { $0.name.hasSameBytes(as: name) })
            ?? columns.first(where: { $0.name.sqliteNameMatches(name) })
        {
            return column
        }
        try db.checkColumn(name, in: self.name)
        // checkColumn found it after all: the schema changed since it was read.
        return ColumnInfo(name: name, declaredType: "", affinity: .blob)
    }
}
