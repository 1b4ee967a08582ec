import CSQLite

/// Turns a builder filter back into a tree that ``RowFilter`` evaluates. The builder renders a
/// known set of SQL texts, so reading its segments is enough; any other text makes the filter
/// unknown, and the query reads every row.
struct RowFilterCompiler {
    private struct Failure: Error {}

    private enum Operand {
        case column(Int)
        case value(DatabaseValue)
        case node(RowFilter.Node)
    }

    /// Deeper nesting than this is not tested (the filter counts as matching every row).
    private static let maxDepth = 100

    private let segments: [SQLFragment.Segment]
    private let columnIndex: (String) -> Int?
    private var position = 0
    private var depth = 0

    /// The filter as a tree, or nil when it holds SQL that is not the builder's or names an
    /// unknown column.
    static func compile(_ expression: SQLExpression, columnIndex: @escaping (String) -> Int?) -> RowFilter.Node? {
        var compiler = RowFilterCompiler(segments: expression.fragment.segments, columnIndex: columnIndex)
        guard let node = try? compiler.parseOr(), compiler.position == compiler.segments.count else { return nil }
        return node
    }

    private init(segments: [SQLFragment.Segment], columnIndex: @escaping (String) -> Int?) {
        self.segments = segments
        self.columnIndex = columnIndex
    }

    private func peek() -> String? {
        guard position < segments.count, case .sql(let text) = segments[position] else { return nil }
        return text
    }

    private mutating func expect(_ text: String) throws {
        guard peek() == text else { throw Failure() }
        position += 1
    }

    private mutating func parseOr() throws -> RowFilter.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw Failure() }
        var nodes = [try parseAnd()]
        while peek() == " OR " {
            position += 1
            nodes.append(try parseAnd())
        }
        return nodes.count == 1 ? nodes[0] : .or(nodes)
    }

    private mutating func parseAnd() throws -> RowFilter.Node {
        var nodes = [try parseNot()]
        while peek() == " AND " {
            position += 1
            nodes.append(try parseNot())
        }
        return nodes.count == 1 ? nodes[0] : .and(nodes)
    }

    private mutating func parseNot() throws -> RowFilter.Node {
        if peek() == "NOT " {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw Failure() }
            return .not(try parseNot())
        }
        return try parsePredicate()
    }

    private mutating func parsePredicate() throws -> RowFilter.Node {
        let lhs = try parsePrimary()
        guard let text = peek() else {
            if case .node(let node) = lhs { return node }
            // A bare column or value, true by its numeric value: not evaluated.
            return .unknown
        }
        switch text {
        case " IS NULL", " IS NOT NULL":
            position += 1
            guard case .column(let column) = lhs else { return .unknown }
            return .isNull(column: column, negated: text == " IS NOT NULL")
        case " = ", " <> ", " < ", " <= ", " > ", " >= ":
            position += 1
            let rhs = try parsePrimary()
            let op = Self.comparison(text)
            switch (lhs, rhs) {
            case (.column(let column), .value(let value)): return .comparison(column: column, op, value)
            case (.value(let value), .column(let column)): return .comparison(column: column, Self.flipped(op), value)
            default: return .unknown
            }
        case " LIKE ", " GLOB ":
            position += 1
            _ = try parsePrimary()
            if peek() == " ESCAPE '\\'" { position += 1 }
            return .unknown
        case " IN (":
            position += 1
            var values: [DatabaseValue] = []
            var isExact = true
            if peek() != ")" {
                while true {
                    if case .value(let value) = try parsePrimary() { values.append(value) } else { isExact = false }
                    guard peek() == ", " else { break }
                    position += 1
                }
            }
            try expect(")")
            guard isExact, case .column(let column) = lhs else { return .unknown }
            return .inList(column: column, values)
        case " BETWEEN ":
            position += 1
            let lower = try parsePrimary()
            try expect(" AND ")
            let upper = try parsePrimary()
            guard case .column(let column) = lhs, case .value(let low) = lower, case .value(let high) = upper else {
                return .unknown
            }
            return .and([
                .comparison(column: column, .greaterOrEqual, low), .comparison(column: column, .lessOrEqual, high),
            ])
        default:
            if case .node(let node) = lhs { return node }
            return .unknown
        }
    }

    private mutating func parsePrimary() throws -> Operand {
        guard position < segments.count else { throw Failure() }
        let segment = segments[position]
        position += 1
        switch segment {
        case .identifier(let name):
            guard let index = columnIndex(name) else { throw Failure() }
            return .column(index)
        case .binding(let value):
            return .value(value)
        case .sql("("):
            let node = try parseOr()
            try expect(")")
            return .node(node)
        case .sql("1"):
            return .node(.truth(true))
        case .sql("0"):
            return .node(.truth(false))
        case .sql, .foreignIdentifier, .invalidValue:
            // A lookup in another table is not this row's to decide (nor is a value that never runs).
            throw Failure()
        }
    }

    private static func comparison(_ text: String) -> RowFilter.Operator {
        switch text {
        case " = ": .equal
        case " <> ": .notEqual
        case " < ": .less
        case " <= ": .lessOrEqual
        case " > ": .greater
        default: .greaterOrEqual
        }
    }

    private static func flipped(_ op: RowFilter.Operator) -> RowFilter.Operator {
        switch op {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: op
        }
    }
}

/// A table's columns as the pre-update hook reports its rows: ASCII-lowercased names, and what
/// comparing each needs.
struct RowLayout {
    var names: [String]
    var traits: [RowFilter.ColumnTraits]
    var encoding: RowFilter.TextEncoding
}

extension Database {
    /// The shape of `table` as the pre-update hook reports its rows, with what comparing its
    /// columns needs; nil when its rows are not reported one by one (a view, a virtual table,
    /// generated or hidden columns, a temporary table of the same name).
    func rowLayout(of table: String) throws -> RowLayout? {
        let version = try fetchOne(Int64.self, "PRAGMA schema_version") ?? 0
        if let cached = regionTrace.rowLayouts[ExactString(table)], cached.schemaVersion == version {
            return cached.layout
        }
        let layout = try readRowLayout(of: table)
        regionTrace.rowLayouts[ExactString(table)] = (version, layout)
        return layout
    }

    private func readRowLayout(of table: String) throws -> RowLayout? {
        let kind = try fetchOne(
            """
            SELECT (SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE \
            AND sql NOT LIKE 'CREATE VIRTUAL%'), (SELECT count(*) FROM temp.sqlite_schema WHERE name = ?1 COLLATE NOCASE)
            """, [.text(table)])
        guard let kind, try kind[0] as Int == 1, try kind[1] as Int == 0 else { return nil }
        // Regions and changes key tables by Swift strings, which merge two names that differ only
        // in Unicode normalization: such tables are read whole, never through one's layout.
        let folded = table.sqliteFolded
        let tables = try fetchAll(String.self, "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view')")
        guard !tables.contains(where: { $0.sqliteFolded == folded && !$0.sqliteNameMatches(table) }) else { return nil }
        // The PRAGMA statement rather than the table-valued function, which SQLite's authorizer
        // reports as a write. The name comes from the authorizer, and is quoted.
        let columns = try fetchAll("PRAGMA main.table_xinfo(\(String.quotedIdentifier(table)))")
        guard !columns.isEmpty, try columns.allSatisfy({ try ($0[6] as Int) == 0 }) else { return nil }
        let encoding: RowFilter.TextEncoding
        switch try fetchOne(String.self, "PRAGMA main.encoding") {
        case "UTF-8": encoding = .utf8
        case "UTF-16le": encoding = .utf16le
        case "UTF-16be": encoding = .utf16be
        default: return nil
        }
        var names: [String] = []
        var traits: [RowFilter.ColumnTraits] = []
        for column in columns {
            let name: String = try column[1]
            let defaultValue: String? = try column[4]
            var type: UnsafePointer<CChar>?
            var collation: UnsafePointer<CChar>?
            guard
                sqlite3_table_column_metadata(handle, "main", table, name, &type, &collation, nil, nil, nil)
                    == SQLITE_OK
            else { return nil }
            names.append(name.sqliteFolded)
            traits.append(
                RowFilter.ColumnTraits(
                    affinity: RowFilter.Affinity(declaredType: type.map { String(cString: $0) } ?? ""),
                    isBinary: collation.map { String(cString: $0).sqliteFolded == "binary" } ?? true,
                    nullMayBeDefault: defaultValue.map { $0.sqliteFolded != "null" } ?? false))
        }
        return RowLayout(names: names, traits: traits, encoding: encoding)
    }

    /// The scope of `table` for a query that reads `columns` of it, in the rows that may match
    /// one of `filters` (every row when nil). Nil when the table's rows cannot be tested.
    func rowScope(of table: String, columns: DatabaseRegion.Columns, filters: [SQLExpression]?) throws -> RowScope? {
        guard let layout = try rowLayout(of: table) else { return nil }
        func index(_ name: String) -> Int? {
            let folded = name.sqliteFolded
            return layout.names.firstIndex { $0.hasSameBytes(as: folded) }
        }
        var readColumns: Set<Int>?
        if case .only(let names) = columns {
            var indexes: Set<Int> = []
            for name in names {
                // A column the layout does not know (the rowid by one of its names) reads every column.
                guard index(name) != nil else { return nil }
                // The region's set of names is a Swift `Set`, which keeps one of two names that
                // differ only in Unicode normalization: both columns count as read.
                let folded = name.sqliteFolded
                indexes.formUnion(layout.names.indices.filter { layout.names[$0] == folded })
            }
            readColumns = indexes
        }
        var compiled: [RowFilter]?
        if let filters {
            compiled = []
            for filter in filters {
                guard let node = RowFilterCompiler.compile(filter, columnIndex: index) else {
                    compiled = nil
                    break
                }
                compiled!.append(RowFilter(root: node, columns: layout.traits, encoding: layout.encoding))
            }
        }
        let defaulted = Set(layout.traits.indices.filter { layout.traits[$0].nullMayBeDefault })
        return RowScope(
            columnCount: layout.names.count, readColumns: readColumns, filters: compiled, defaultedColumns: defaulted)
    }
}
