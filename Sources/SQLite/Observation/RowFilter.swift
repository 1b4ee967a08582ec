/// A query-builder filter in a form that tests one row's values without asking SQLite, and says
/// "may match" wherever the answer could differ from SQLite's own.
///
/// Live values use it to skip the refetch of a query that no changed row can affect: a row that
/// matched neither before nor after the change.
///
/// It evaluates exactly: comparisons, `IN`, `BETWEEN`, `IS NULL` and their combinations with
/// `AND`, `OR` and `NOT`, in SQL's three-valued logic, on columns compared with bound values.
/// It answers "may match" for `LIKE` and `GLOB` (`PRAGMA case_sensitive_like` changes them),
/// two columns compared, text compared under a collation other than `BINARY`, and values of
/// different storage classes where column affinity could convert one of them.
public struct RowFilter: Hashable, Sendable {
    /// The column affinities that decide how SQLite converts a bound value before comparing.
    enum Affinity: Hashable, Sendable {
        case integer, real, numeric, text, blob

        /// SQLite's rules for a declared type ("Determination Of Column Affinity").
        init(declaredType: String) {
            let type = declaredType.uppercased()
            if type.contains("INT") {
                self = .integer
            } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
                self = .text
            } else if type.contains("BLOB") || type.isEmpty {
                self = .blob
            } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
                self = .real
            } else {
                self = .numeric
            }
        }
    }

    /// What Swift needs of a column to compare its values as SQLite does.
    struct ColumnTraits: Hashable, Sendable {
        var affinity: Affinity
        /// The column's collation is `BINARY`.
        var isBinary: Bool
    }

    enum Operator: Hashable, Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    indirect enum Node: Hashable, Sendable {
        case truth(Bool)
        case comparison(column: Int, Operator, SQLiteValue)
        case isNull(column: Int, negated: Bool)
        case inList(column: Int, [SQLiteValue])
        case and([Node])
        case or([Node])
        case not(Node)
        /// Something Swift cannot decide exactly.
        case unknown
    }

    /// SQL's three truth values, and a fourth for "cannot tell".
    enum Truth {
        case yes, no, null, unknown
    }

    let root: Node
    /// Per column of the table, in the order of the row's values.
    let columns: [ColumnTraits]

    /// True when SQLite could find the row (its values in table order) to satisfy the filter.
    public func mayMatch(_ row: [SQLiteValue]) -> Bool {
        guard row.count == columns.count else { return true }
        switch evaluate(root, row) {
        case .yes, .unknown: return true
        case .no, .null: return false
        }
    }

    /// The column and values of an equality or `IN` that every matching row satisfies, with the
    /// values normalized as ``indexKey(_:)`` does: a row whose value in that column is none of
    /// them cannot match. Nil when the filter has no such condition that Swift decides exactly.
    public var equalityKeys: (column: Int, values: [SQLiteValue])? {
        let conjuncts: [Node]
        if case .and(let nodes) = root { conjuncts = nodes } else { conjuncts = [root] }
        for node in conjuncts {
            switch node {
            case .comparison(let column, .equal, let value):
                if isIndexable(value, in: column) { return (column, [Self.indexKey(value)]) }
            case .inList(let column, let values):
                let keys = values.filter { !$0.isNull }
                if keys.allSatisfy({ isIndexable($0, in: column) }) { return (column, keys.map(Self.indexKey)) }
            default:
                continue
            }
        }
        return nil
    }

    /// A value's key in an index of equality filters: integral reals become integers, since
    /// SQLite finds `5.0 = 5`.
    public static func indexKey(_ value: SQLiteValue) -> SQLiteValue {
        if case .real(let double) = value, let integer = Int64(exactly: double), abs(integer) <= 1 << 53 {
            return .integer(integer)
        }
        return value
    }

    /// True when SQLite's equality with `value` in `column` holds exactly when the index keys
    /// are equal (Swift's text equality is coarser than SQLite's bytes, which only adds
    /// candidates that the evaluation then rejects).
    private func isIndexable(_ value: SQLiteValue, in column: Int) -> Bool {
        let traits = columns[column]
        switch value {
        case .integer, .real: return traits.affinity != .text
        case .text: return (traits.affinity == .text || traits.affinity == .blob) && traits.isBinary
        case .null, .blob: return false
        }
    }

    // MARK: Evaluation

    private func evaluate(_ node: Node, _ row: [SQLiteValue]) -> Truth {
        switch node {
        case .truth(let value):
            return value ? .yes : .no
        case .unknown:
            return .unknown
        case .isNull(let column, let negated):
            return row[column].isNull != negated ? .yes : .no
        case .comparison(let column, let op, let value):
            return compare(row[column], op, value, columns[column])
        case .inList(let column, let values):
            var truths: [Truth] = []
            truths.reserveCapacity(values.count)
            for value in values { truths.append(compare(row[column], .equal, value, columns[column])) }
            return Self.or(truths)
        case .and(let nodes):
            return Self.and(nodes.map { evaluate($0, row) })
        case .or(let nodes):
            return Self.or(nodes.map { evaluate($0, row) })
        case .not(let node):
            switch evaluate(node, row) {
            case .yes: return .no
            case .no: return .yes
            case let other: return other
            }
        }
    }

    private static func and(_ truths: [Truth]) -> Truth {
        if truths.contains(.no) { return .no }
        if truths.contains(.unknown) { return .unknown }
        return truths.contains(.null) ? .null : .yes
    }

    private static func or(_ truths: [Truth]) -> Truth {
        if truths.contains(.yes) { return .yes }
        if truths.contains(.unknown) { return .unknown }
        return truths.contains(.null) ? .null : .no
    }

    private func compare(_ stored: SQLiteValue, _ op: Operator, _ bound: SQLiteValue, _ traits: ColumnTraits) -> Truth {
        if stored.isNull || bound.isNull { return .null }
        guard let order = Self.order(stored, bound, traits) else { return .unknown }
        let result: Bool
        switch op {
        case .equal: result = order == 0
        case .notEqual: result = order != 0
        case .less: result = order < 0
        case .lessOrEqual: result = order <= 0
        case .greater: result = order > 0
        case .greaterOrEqual: result = order >= 0
        }
        return result ? .yes : .no
    }

    /// The sign of `stored - bound` as SQLite compares them, or nil when affinity or collation
    /// could make SQLite answer otherwise than a plain comparison.
    private static func order(_ stored: SQLiteValue, _ bound: SQLiteValue, _ traits: ColumnTraits) -> Int? {
        switch (stored, bound) {
        case (.integer(let a), .integer(let b)):
            return traits.affinity == .text ? nil : (a < b ? -1 : a == b ? 0 : 1)
        case (.real(let a), .real(let b)):
            return traits.affinity == .text ? nil : (a < b ? -1 : a == b ? 0 : 1)
        case (.integer(let a), .real(let b)):
            guard traits.affinity != .text, abs(a) <= 1 << 53 else { return nil }
            let a = Double(a)
            return a < b ? -1 : a == b ? 0 : 1
        case (.real(let a), .integer(let b)):
            guard traits.affinity != .text, abs(b) <= 1 << 53 else { return nil }
            let b = Double(b)
            return a < b ? -1 : a == b ? 0 : 1
        case (.text(let a), .text(let b)):
            guard (traits.affinity == .text || traits.affinity == .blob) && traits.isBinary else { return nil }
            return bytes(Array(a.utf8), Array(b.utf8))
        case (.blob(let a), .blob(let b)):
            return bytes(a, b)
        default:
            return nil
        }
    }

    /// memcmp order, the shorter first on a common prefix: SQLite's for BINARY text and blobs.
    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count < b.count ? -1 : a.count == b.count ? 0 : 1
    }
}
