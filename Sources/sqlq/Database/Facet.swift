import ArgumentParser
import CSQLite
import SQLite

/// One `--facet`: the most common values of a column among the rows that match the filter, with
/// their counts, as Datasette's facets count them. NULL is a value of its own.
struct Facet: Hashable, Sendable {
    /// The column's name as the schema spells each step: `priority`, or `hero_id.name` across a
    /// foreign key.
    let column: String
    /// The value counted for each row: the column itself, or lookups across foreign keys.
    let expression: SQLExpression
    /// How many values are shown (`--facet-size`); one more is fetched to tell whether more exist.
    let size: Int

    /// The counted values of one facet.
    struct Counts: Hashable, Sendable {
        let column: String
        /// Most common first; equal counts in the column's order.
        let values: [Value]
        /// Whether the column has more distinct values among the matching rows than are shown.
        let hasMore: Bool
    }

    struct Value: Hashable, Sendable {
        let value: DatabaseValue
        let count: Int64
        /// How the value is written, when not as `value` is: a PostgreSQL value as the rows show
        /// its column's values (a boolean as `t`, a `numeric` as its exact digits).
        var shown: Cell.Owned? = nil

        /// The value as the writers take it.
        var cell: Cell.Owned { shown ?? .value(value) }
    }

    /// Checks the facet options that need no database: a size of at least 1, and no `--count`,
    /// whose single number has no rows to count values in.
    static func validate(facets: [String], sizeText: String?, counts: Bool) throws {
        if let sizeText, try QueryOptions.count(sizeText, option: "--facet-size") == 0 {
            throw ValidationError("--facet-size must be at least 1, such as --facet-size 10")
        }
        if counts && !facets.isEmpty {
            throw ValidationError(
                "--facet cannot be combined with --count; drop --count to see the rows and the facets")
        }
    }

    /// The facets of `names` (each once, in the order given), checked against the schema.
    static func resolve(_ names: [String], size: Int, schema: TableSchema, db: Database) throws -> [Facet] {
        var facets: [Facet] = []
        for name in names {
            let path = try resolveColumn(name, schema: schema, db: db)
            if !facets.contains(where: { $0.column == path.name }) {
                facets.append(Facet(column: path.name, expression: path.expression, size: size))
            }
        }
        return facets
    }

    /// The column a `--facet` name stands for, a plain column or a dotted path across foreign
    /// keys, or a usage error that points at the wrong step and suggests the closest name.
    static func resolveColumn(_ name: String, schema: TableSchema, db: Database) throws -> ForeignKeyPath {
        try QueryOptions.column(name, option: "--facet", text: name, position: 0, schema: schema, db: db)
    }

    /// The statement that counts this facet's values among the rows of `table` that match
    /// `filter` (every row when nil), and its arguments.
    func statement(table: String, filter: SQLExpression?) -> (sql: String, arguments: [DatabaseValue]) {
        var sql = "SELECT \(expression.sql), count(*) FROM \(String.quotedIdentifier(table))"
        var arguments = expression.arguments
        if let filter {
            sql += " WHERE " + filter.sql
            arguments += filter.arguments
        }
        // By position: the value may be a lookup across foreign keys, rendered once.
        sql += " GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?"
        // One more than shown tells whether more exist.
        arguments.append(.integer(Int64(size < Int.max ? size + 1 : size)))
        return (sql, arguments)
    }

    /// Counts this facet's values among the rows of `table` that match `filter`. A value that is
    /// text but not UTF-8 throws: a facet's values are held as strings, which would change it.
    func fetch(_ db: Database, table: String, filter: SQLExpression?, budget: inout ByteBudget) throws -> Counts {
        let (sql, arguments) = statement(table: table, filter: filter)
        let statement = try db.makeStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var values: [Value] = []
        while try statement.step() {
            try budget.charge(row: statement)
            try Cell.withColumn(statement.sqliteHandle, 0) { cell in
                guard case .invalidText(let bytes) = cell else { return }
                let offset = UTF8Validation.firstInvalidByte(in: Array(bytes)) ?? 0
                let hex = String(bytes[offset], radix: 16, uppercase: true)
                throw CommandError.failure(
                    "--facet \(column): a value is text that is not UTF-8 (byte \(offset + 1) is 0x"
                        + (hex.count == 1 ? "0" + hex : hex) + "), which a facet cannot show unchanged\n"
                        + "  export the rows with --format csv or tsv, which write the bytes as stored")
            }
            values.append(Value(value: statement.value(at: 0), count: sqlite3_column_int64(statement.sqliteHandle, 1)))
        }
        let hasMore = values.count > size
        if hasMore { values.removeLast(values.count - size) }
        return Counts(column: column, values: values, hasMore: hasMore)
    }
}
