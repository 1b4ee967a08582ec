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
                let rowIDColumn = try Self.rowIDColumn(of: parent, in: db)
                guard let key = part.to ?? rowIDColumn ?? (schema.columns.isEmpty ? nil : "rowid") else { continue }
                let label = labelColumns.lazy.compactMap { name in
                    schema.columns.first { $0.name.sqliteNameMatches(name) }?.name
                }.first
                labels.append(
                    ForeignKeyLabel(
                        column: part.from, parent: parent, key: key, label: label,
                        keyIsRowID: key.sqliteNameMatches("rowid") || rowIDColumn?.sqliteNameMatches(key) == true))
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
