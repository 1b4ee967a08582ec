#if PostgreSQL
    import PostgreSQL
    import SQLite

    /// A table or view of the search path's schemas, with its columns as the catalog declares
    /// them: what names are checked against and values are cast to.
    struct PostgreSQLTable {
        /// How sqlq treats a column's values: PostgreSQL's type categories (`pg_type.typcategory`).
        enum Kind: Equatable {
            /// `smallint`, `integer`, `bigint`.
            case integer
            /// `real`, `double precision`.
            case float
            /// `numeric`: exact decimals.
            case numeric
            case boolean
            /// `text`, `varchar`, `char`, `name`.
            case string
            /// Anything else (dates, times, UUIDs, JSON, arrays…): compared with text cast to the
            /// column's type, shown as PostgreSQL's text form.
            case other

            init(type: String, category: String) {
                switch type {
                case "smallint", "integer", "bigint": self = .integer
                case "real", "double precision": self = .float
                case "numeric": self = .numeric
                case "boolean": self = .boolean
                default: self = category == "S" ? .string : .other
                }
            }

            var isNumber: Bool { self == .integer || self == .float || self == .numeric }
        }

        struct Column {
            let name: String
            /// The type as `format_type` spells it, without its modifier (`character varying`,
            /// not `character varying(20)`): what a bound value is cast to, so that the cast
            /// never truncates it.
            let type: String
            let kind: Kind
        }

        let schema: String
        let name: String
        let isView: Bool
        let columns: [Column]

        /// The table's name, schema-qualified and quoted, for SQL.
        var quotedName: String { Self.quote(schema) + "." + Self.quote(name) }

        /// The tables and views the search path shows (its schemas, `pg_catalog` left out), by
        /// name in byte order, as SQLite's are listed: name, schema, and `table` or `view`.
        static let listSQL = """
            SELECT c.relname::text AS name, n.nspname::text AS schema,
                CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS type,
                (SELECT count(*) FROM pg_catalog.pg_attribute AS a
                    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
            FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname = ANY (current_schemas(false))
                AND pg_catalog.pg_table_is_visible(c.oid)
            ORDER BY c.relname COLLATE "C"
            """

        /// Reads the table named `table` (exactly, else ignoring ASCII case as SQLite does), or
        /// throws the `SchemaError` SQLite's tables throw, with the closest name.
        init(_ connection: PostgreSQLConnection, table: String) throws {
            let tables = try connection.fetchAll(Self.listSQL).map { row in
                (name: row.value(at: 0).cellText, schema: row.value(at: 1).cellText, type: row.value(at: 2).cellText)
            }
            let names = tables.map(\.name)
            guard let match = Database.match(table, in: names), let found = tables.first(where: { $0.name == match })
            else {
                throw SchemaError(
                    kind: .unknownTable, name: table, available: names,
                    suggestion: Database.closest(to: table, in: names))
            }
            try self.init(connection, schema: found.schema, name: found.name, isView: found.type == "view")
        }

        /// Reads the columns of the table `name` of `schema`, which exists: one a foreign key
        /// refers to, in any schema.
        init(_ connection: PostgreSQLConnection, schema: String, name: String, isView: Bool) throws {
            self.schema = schema
            self.name = name
            self.isView = isView
            columns = try connection.fetchAll(
                """
                SELECT a.attname::text, pg_catalog.format_type(a.atttypid, NULL), t.typcategory::text
                FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_type AS t ON t.oid = a.atttypid
                WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """, [.text(Self.quote(schema) + "." + Self.quote(name))]
            ).map { row in
                let type = row.value(at: 1).cellText
                return Column(
                    name: row.value(at: 0).cellText, type: type,
                    kind: Kind(type: type, category: row.value(at: 2).cellText))
            }
        }

        /// The column named `name` (exactly, else ignoring ASCII case), or the `SchemaError` of an
        /// unknown column, which lists the columns and suggests the closest.
        func column(_ name: String) throws -> Column {
            let names = columns.map(\.name)
            if let match = Database.match(name, in: names), let column = columns.first(where: { $0.name == match }) {
                return column
            }
            throw SchemaError(
                kind: .unknownColumn(table: self.name), name: name, available: names,
                suggestion: Database.closest(to: name, in: names))
        }

        /// `name` as a quoted identifier: double quotes doubled.
        static func quote(_ name: String) -> String {
            String.quotedIdentifier(name)
        }
    }
#endif
