#if PostgreSQL
    import PostgreSQL
    import SQLite

    /// A table or view of the search path's schemas, with its columns as the catalog declares
    /// them: what names are checked against and values are cast to.
    struct PostgreSQLTable {
        /// How sqlq treats a column's values: PostgreSQL's type categories (`pg_type.typcategory`)
        /// of the column's type, or of the base type of a domain.
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

        /// How comparisons, sorts and facets read a column's values, so that they order them as
        /// SQLite orders the values the column prints.
        enum Form: Equatable {
            /// As they are.
            case value
            /// Text, byte by byte (`COLLATE "C"`, SQLite's BINARY collation), whatever the
            /// column's collation.
            case text
            /// Dates, times, intervals, enums and `char(n)`: their text form, byte by byte, as SQLite compares
            /// the same values stored as text: not in the order of an enum's labels, and a
            /// `char(n)` as it prints, without its padding.
            case textForm
            /// `real`: the double that the value's shortest text reads as, which is what it
            /// prints and what SQLite would store for it.
            case printedDouble
        }

        struct Column {
            let name: String
            /// The type as `format_type` spells it, without its modifier (`character varying`,
            /// not `character varying(20)`): what errors name.
            let type: String
            let kind: Kind
            /// The base type, schema-qualified and quoted (the type itself unless it is a
            /// domain): what a literal is checked against.
            let baseType: String
            let form: Form

            /// Whether a literal is checked against the type on the server before the query runs,
            /// so that a value the type refuses, or an operator it lacks, is a usage error that
            /// names the column: types sqlq does not compare in a form of its own (UUIDs, JSON,
            /// arrays…), and enums, whose labels are their only values.
            var checksLiterals: Bool { kind == .other && (form == .value || isEnum) }
            let isEnum: Bool

            init(name: String, type: String, baseType: String, baseName: String, category: String, isEnum: Bool) {
                self.name = name
                self.type = type
                self.baseType = baseType
                self.isEnum = isEnum
                kind = Kind(type: baseName, category: category)
                form =
                    switch kind {
                    case .string: baseName == "character" ? .textForm : .text
                    case .float: baseName == "real" ? .printedDouble : .value
                    // "T" is `interval`, whose equal values print apart (`1 day`, `24:00:00`).
                    case .other: isEnum || category == "D" || category == "T" ? .textForm : .value
                    case .integer, .numeric, .boolean: .value
                    }
            }
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
            // A domain is classified by its base type, followed through domains over domains.
            columns = try connection.fetchAll(
                """
                SELECT a.attname::text, pg_catalog.format_type(a.atttypid, NULL), pg_catalog.format_type(b.oid, NULL),
                    b.typcategory::text, (b.typtype = 'e')::int, bn.nspname::text, b.typname::text
                FROM pg_catalog.pg_attribute AS a
                CROSS JOIN LATERAL (
                    WITH RECURSIVE chain(oid, depth) AS (
                        SELECT a.atttypid, 0
                        UNION ALL
                        SELECT t.typbasetype, chain.depth + 1
                        FROM chain JOIN pg_catalog.pg_type AS t ON t.oid = chain.oid
                        WHERE t.typtype = 'd' AND chain.depth < 32)
                    SELECT chain.oid FROM chain ORDER BY chain.depth DESC LIMIT 1) AS base
                JOIN pg_catalog.pg_type AS b ON b.oid = base.oid
                JOIN pg_catalog.pg_namespace AS bn ON bn.oid = b.typnamespace
                WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """, [.text(Self.quote(schema) + "." + Self.quote(name))]
            ).map { row in
                Column(
                    name: row.value(at: 0).cellText, type: row.value(at: 1).cellText,
                    baseType: Self.quote(row.value(at: 5).cellText) + "." + Self.quote(row.value(at: 6).cellText),
                    baseName: row.value(at: 2).cellText, category: row.value(at: 3).cellText,
                    isEnum: row.value(at: 4) == .integer(1))
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
