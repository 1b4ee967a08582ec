import QueryBuilder
import SQLCore

/// An ordinary table's columns, in `attnum` order, as a live source compares their values: what
/// turns the rows of a change notification (JSON objects keyed by column name) into the values
/// a ``RowScope`` tests, and what a scope's filters compile against.
///
/// Only integer and text columns carry their values; any other column holds a NULL placeholder,
/// which its filter traits never decide on.
struct TableLayout: Sendable {
    /// How a column's JSON value becomes a ``DatabaseValue``.
    enum Kind: Sendable, Equatable {
        /// `int2`, `int4`, `int8`: a JSON integer, read exactly.
        case integer
        /// `text`, `varchar`: a JSON string.
        case text
        /// Any other type: never compared, a NULL placeholder.
        case other
    }

    /// The table's schema and name, quoted (``PostgreSQLDatabase/qualifiedName(schema:table:)``).
    let qualifiedName: String
    /// The column names, in `attnum` order.
    let names: [String]
    /// How each column's values are read from a notification.
    let kinds: [Kind]
    /// How a filter compares each column's values, as PostgreSQL does or not at all.
    let traits: [RowFilter.ColumnTraits]
    /// Name (by its bytes) → position.
    let indexes: [ExactString: Int]

    init(qualifiedName: String, columns: [(name: String, type: String, collation: String?, isDeterministic: Bool)]) {
        self.qualifiedName = qualifiedName
        names = columns.map(\.name)
        kinds = columns.map { column in
            switch column.type {
            case "int2", "int4", "int8": .integer
            case "text", "varchar": .text
            default: .other
            }
        }
        traits = columns.map {
            .postgreSQL(type: $0.type, collation: $0.collation, isDeterministic: $0.isDeterministic)
        }
        var indexes: [ExactString: Int] = [:]
        for (index, name) in names.enumerated() { indexes[ExactString(name)] = index }
        self.indexes = indexes
    }

    /// The position of column `name`, matched by its bytes as PostgreSQL matches quoted names.
    func index(of name: String) -> Int? {
        indexes[ExactString(name)]
    }

    /// The changes of `images` as rows of this layout; nil when any row does not fit it exactly
    /// (other columns, as after a schema change, or a value of another type than its column's):
    /// then the change is one of the whole table.
    func rowChanges(_ images: RowImages) -> [DatabaseChanges.RowChange]? {
        var changes: [DatabaseChanges.RowChange] = []
        changes.reserveCapacity(images.old.count + images.new.count)
        for row in images.old {
            guard let values = values(of: row) else { return nil }
            changes.append(DatabaseChanges.RowChange(old: values, new: nil))
        }
        for row in images.new {
            guard let values = values(of: row) else { return nil }
            changes.append(DatabaseChanges.RowChange(old: nil, new: values))
        }
        return changes
    }

    /// The values of one row image, in column order.
    private func values(of row: [RowImages.Column]) -> [DatabaseValue]? {
        // The image's names are distinct: as many as the layout's, each one of them, is all of them.
        guard row.count == names.count else { return nil }
        var values = [DatabaseValue?](repeating: nil, count: names.count)
        for column in row {
            guard let index = indexes[column.name], values[index] == nil else { return nil }
            switch (kinds[index], column.value) {
            case (_, .null), (.other, _):
                values[index] = .null
            case (.integer, .number(let text)):
                guard let integer = Int64(text) else { return nil }
                values[index] = .integer(integer)
            case (.text, .string(let text)):
                values[index] = .text(text)
            default:
                return nil
            }
        }
        return values.map { $0! }
    }
}

extension PostgreSQLReadConnection {
    /// Reads the layout of `table` as a query on this connection names it (through the
    /// `search_path`); nil unless it is an ordinary table without inheritance children (whose
    /// rows a query on it reads too, notified as theirs), the server's encoding is UTF-8, and the
    /// event triggers of ``PostgreSQLDatabase/schemaChangeNotificationSQL`` are enabled: without
    /// them, a column whose type changed would go on being compared as before.
    func readLayout(of table: String) throws -> TableLayout? {
        let triggers = PostgreSQLDatabase.schemaChangeTriggers.keys.sorted().map(String.quotedLiteral)
            .joined(separator: ", ")
        let rows = try session.runBlocking(
            """
            SELECT n.nspname::text, c.relname::text, (c.relkind = 'r' AND NOT c.relhassubclass)::int4,
                current_setting('server_encoding'),
                (SELECT count(*) FROM pg_catalog.pg_event_trigger WHERE evtname IN (\(triggers)) AND evtenabled <> 'D')::int8,
                a.attname::text, t.typname::text, co.collname::text, co.collisdeterministic::int4
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
            WHERE c.oid = to_regclass($1)
            ORDER BY a.attnum
            """, [.text(String.quotedIdentifier(table))])
        guard let first = rows.first,
            case .text(let schema) = first.value(at: 0), case .text(let name) = first.value(at: 1),
            case .integer(1) = first.value(at: 2),
            case .text("UTF8") = first.value(at: 3),
            case .integer(let triggerCount) = first.value(at: 4),
            triggerCount == PostgreSQLDatabase.schemaChangeTriggers.count
        else { return nil }
        var columns: [(name: String, type: String, collation: String?, isDeterministic: Bool)] = []
        for row in rows {
            // No column at all: the left join's one row of NULLs.
            guard case .text(let column) = row.value(at: 5) else {
                guard rows.count == 1 else { return nil }
                break
            }
            guard case .text(let type) = row.value(at: 6) else { return nil }
            var collation: String?
            var isDeterministic = true
            if case .text(let collationName) = row.value(at: 7) {
                guard case .integer(let deterministic) = row.value(at: 8) else { return nil }
                collation = collationName
                isDeterministic = deterministic != 0
            }
            columns.append((column, type, collation, isDeterministic))
        }
        return TableLayout(
            qualifiedName: PostgreSQLDatabase.qualifiedName(schema: schema, table: name), columns: columns)
    }
}
