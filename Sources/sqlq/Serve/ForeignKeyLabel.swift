#if HTTP
    import SQLite

    /// A single-column foreign key of a table, as `serve` shows its values: the parent row's
    /// label (its `name` or `title` column), linking to the parent row.
    struct ForeignKeyLabel: Hashable, Sendable {
        /// The child column, as the schema spells it.
        var column: String
        var parent: String
        /// The parent column the key refers to.
        var key: String
        /// The parent's `name` or `title` column; nil when it has neither.
        var label: String?
        /// Whether the key is the parent's rowid, so that the parent row's page is `/parent/key`.
        var keyIsRowID: Bool

        /// The columns that serve as a label, in order of preference, as Datasette picks them.
        static let labelColumns = ["name", "title"]

        /// The single-column foreign keys of `table` whose parent exists.
        static func all(of table: String, in db: Database) throws -> [ForeignKeyLabel] {
            let (keys, order) = try ForeignKeyPath.declaredForeignKeys(of: table, in: db)
            var labels: [ForeignKeyLabel] = []
            for id in order {
                guard let parts = keys[id], parts.count == 1, let part = parts.first,
                    let parent = try? db.checkTable(part.parent),
                    let schema = try? TableSchema(db, table: parent)
                else { continue }
                let rowIDName = try Self.rowIDName(of: parent, in: db)
                guard let key = part.to ?? rowIDName else { continue }
                let label = labelColumns.lazy.compactMap { name in
                    schema.columns.first { $0.name.sqliteNameMatches(name) }?.name
                }.first
                labels.append(
                    ForeignKeyLabel(
                        column: part.from, parent: parent, key: key, label: label,
                        keyIsRowID: rowIDName?.sqliteNameMatches(key) == true))
            }
            return labels
        }

        /// The column that is `table`'s rowid (an `INTEGER PRIMARY KEY` that SQLite makes an alias of
        /// it), if it has one.
        static func rowIDColumn(of table: String, in db: Database) throws -> String? {
            let keys = try db.fetchAll("SELECT name, type FROM pragma_table_info(?) WHERE pk > 0", [.text(table)])
            guard keys.count == 1 else { return nil }
            let type: String = try keys[0][1]
            guard type.uppercased() == "INTEGER" else { return nil }
            let isTable = try db.fetchOne(
                Int.self,
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ? AND sql NOT LIKE '%WITHOUT ROWID%'",
                [.text(table)])
            guard isTable == 1 else { return nil }
            let name: String = try keys[0][0]
            // `id INTEGER PRIMARY KEY DESC`, declared in the column, is an ordinary column, not
            // the rowid; SQLite's own program says which: an alias is read with `Rowid`, or with
            // `IdxRowid` when the plan scans an index, which holds every rowid.
            let program = try db.fetchAll(
                "EXPLAIN SELECT \(String.quotedIdentifier(name)) FROM \(String.quotedIdentifier(table))")
            let readsRowID = try program.contains { row in try ["Rowid", "IdxRowid"].contains(row[1] as String) }
            return readsRowID ? name : nil
        }

        /// The names SQLite reads a rowid by, unless a column takes the name.
        static let rowIDNames = ["rowid", "_rowid_", "oid"]

        /// A name that reads `table`'s rowid: its `INTEGER PRIMARY KEY`, else the first of
        /// ``rowIDNames`` that no column shadows; nil when every one names a column, or the table
        /// has no rowid (a view, a `WITHOUT ROWID` table).
        static func rowIDName(of table: String, in db: Database) throws -> String? {
            if let column = try rowIDColumn(of: table, in: db) { return column }
            guard
                try db.fetchOne(
                    Int.self,
                    "SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND name = ? AND type <> 'view' AND wr = 0",
                    [.text(table)]) == 1
            else { return nil }
            let columns = try db.fetchAll(String.self, "SELECT name FROM pragma_table_xinfo(?)", [.text(table)])
            return rowIDNames.first { name in !columns.contains { $0.sqliteNameMatches(name) } }
        }

        /// The labels of `values` of this key: each parent row's label by its key's value as text.
        func fetchLabels(_ values: Set<DatabaseValue>, in db: Database) throws -> [String: String] {
            guard let label, !values.isEmpty else { return [:] }
            let values = Array(values)
            let sql =
                "SELECT \(String.quotedIdentifier(key)), \(String.quotedIdentifier(label)) FROM "
                + String.quotedIdentifier(parent) + " WHERE \(String.quotedIdentifier(key)) IN ("
                + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")"
            var labels: [String: String] = [:]
            for row in try db.fetchAll(sql, values) {
                let key = row.value(at: 0)
                let text = row.value(at: 1)
                if case .null = text { continue }
                labels[key.cellText] = text.cellText
            }
            return labels
        }
    }
#endif
