#if PostgreSQL
    import PostgreSQL
    import SQLite

    /// The foreign keys of PostgreSQL's catalog (`pg_constraint`), and the tables they refer to,
    /// read once per command: what dotted names follow.
    final class PostgreSQLForeignKeys {
        /// One foreign key: `columns` of its table refer to `keys` of `parent`, pairwise.
        struct ForeignKey {
            var columns: [String]
            var parentSchema: String
            var parent: String
            var keys: [String]
            /// For each column, the parent key's collation when the column's is another: the key
            /// compares under its own, as PostgreSQL's check does.
            var collations: [(schema: String, name: String)?]
        }

        /// Why a column cannot be followed, in ``ForeignKeyPath``'s words.
        struct Refusal: Error {
            var message: String
        }

        let connection: PostgreSQLConnection
        private var keys: [String: [ForeignKey]] = [:]
        private var tables: [String: PostgreSQLTable] = [:]

        init(_ connection: PostgreSQLConnection) {
            self.connection = connection
        }

        /// The foreign key of `table` that `column` is part of, or a ``Refusal`` that says why
        /// there is none to follow: the same sentences as on SQLite.
        func foreignKey(of column: String, in table: PostgreSQLTable) throws -> ForeignKey {
            let declared = try foreignKeys(of: table)
            func describe(_ key: ForeignKey) -> String {
                let parent = key.parentSchema == table.schema ? key.parent : key.parentSchema + "." + key.parent
                return "(" + key.columns.joined(separator: ", ") + ") → " + parent + "("
                    + key.keys.joined(separator: ", ") + ")"
            }
            let matching = declared.filter { $0.columns.contains(column) }
            guard let key = matching.first else {
                throw Refusal(
                    message: "column \"\(column)\" of \"\(table.name)\" is not a foreign key"
                        + (declared.isEmpty
                            ? " (\"\(table.name)\" declares none)"
                            : " (the foreign keys of \"\(table.name)\": "
                                + declared.map(describe).joined(separator: "; ") + ")"))
            }
            if matching.count > 1 {
                throw Refusal(
                    message: "column \"\(column)\" of \"\(table.name)\" is in \(matching.count) foreign keys ("
                        + matching.map(describe).joined(separator: "; ")
                        + "), and its name cannot say which to follow; name a column that is in only one")
            }
            return key
        }

        /// The table a foreign key refers to, with its columns.
        func parent(of key: ForeignKey) throws -> PostgreSQLTable {
            let quoted = PostgreSQLTable.quote(key.parentSchema) + "." + PostgreSQLTable.quote(key.parent)
            if let table = tables[quoted] { return table }
            let table = try PostgreSQLTable(connection, schema: key.parentSchema, name: key.parent, isView: false)
            tables[quoted] = table
            return table
        }

        /// The foreign keys `table` declares, in the order SQLite lists a table's (the last
        /// declared first), each key's columns in its order.
        ///
        /// A key that refers to a partitioned table has a row of its own in the catalog for each
        /// partition, under the key's (`conparentid`, on the same table): those are the key's, not
        /// other keys. A partition's copy of its parent table's key is the partition's own key.
        private func foreignKeys(of table: PostgreSQLTable) throws -> [ForeignKey] {
            if let known = keys[table.quotedName] { return known }
            let rows = try connection.fetchAll(
                """
                SELECT c.oid::bigint, ca.attname::text, pn.nspname::text, p.relname::text, pa.attname::text,
                    cn.nspname::text, co.collname::text
                FROM pg_catalog.pg_constraint AS c
                CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(child, parent, position)
                JOIN pg_catalog.pg_attribute AS ca ON ca.attrelid = c.conrelid AND ca.attnum = k.child
                JOIN pg_catalog.pg_class AS p ON p.oid = c.confrelid
                JOIN pg_catalog.pg_namespace AS pn ON pn.oid = p.relnamespace
                JOIN pg_catalog.pg_attribute AS pa ON pa.attrelid = c.confrelid AND pa.attnum = k.parent
                LEFT JOIN pg_catalog.pg_collation AS co
                    ON co.oid = pa.attcollation AND pa.attcollation <> ca.attcollation
                LEFT JOIN pg_catalog.pg_namespace AS cn ON cn.oid = co.collnamespace
                WHERE c.conrelid = $1::regclass AND c.contype = 'f'
                    AND NOT EXISTS (
                        SELECT FROM pg_catalog.pg_constraint AS whole
                        WHERE whole.oid = c.conparentid AND whole.conrelid = c.conrelid)
                ORDER BY c.oid DESC, k.position
                """, [.text(table.quotedName)])
            var found: [ForeignKey] = []
            var last: DatabaseValue?
            for row in rows {
                let collation =
                    row.value(at: 6).isNull ? nil : (schema: row.value(at: 5).cellText, name: row.value(at: 6).cellText)
                if row.value(at: 0) != last {
                    last = row.value(at: 0)
                    found.append(
                        ForeignKey(
                            columns: [], parentSchema: row.value(at: 2).cellText, parent: row.value(at: 3).cellText,
                            keys: [], collations: []))
                }
                found[found.count - 1].columns.append(row.value(at: 1).cellText)
                found[found.count - 1].keys.append(row.value(at: 4).cellText)
                found[found.count - 1].collations.append(collation)
            }
            keys[table.quotedName] = found
            return found
        }
    }
#endif
