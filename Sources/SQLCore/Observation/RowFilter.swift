/// A query-builder filter in a form that tests one row's values without asking SQLite, and says
/// "may match" wherever the answer could differ from SQLite's own.
///
/// Live values use it to skip the refetch of a query that no changed row can affect: a row that
/// matched neither before nor after the change.
///
/// The rule: it answers "cannot match" only where it computes exactly what SQLite would, and
/// "may match" everywhere else, so that a wrong answer costs a refetch and never leaves a live
/// value stale.
///
/// It evaluates exactly: comparisons, `IN`, `BETWEEN`, `IS NULL` and their combinations with
/// `AND`, `OR` and `NOT`, in SQL's three-valued logic, on columns compared with bound values:
/// integers and reals compared exactly as SQLite does at any magnitude, and text under `BINARY`
/// compared by its bytes in the database's encoding (never by Swift's canonical equivalence).
/// It answers "may match" for `LIKE` and `GLOB` (`PRAGMA case_sensitive_like` changes them),
/// two columns compared, text compared under a collation other than `BINARY`, values of
/// different storage classes where column affinity could convert one of them, and an old NULL
/// in a column with a default (see `ColumnTraits.nullMayBeDefault`).
///
/// On PostgreSQL (`ColumnTraits.postgreSQL(type:collation:isDeterministic:)`), whose types are
/// strict and whose collations are the operating system's or ICU's, it decides less: integer
/// columns against bound integers, and text columns against bound text by their UTF-8 bytes, for
/// equality under any deterministic collation and for order under "C" and "POSIX" only. Every
/// other column, and every other bound value, is "may match".
public struct RowFilter: Hashable, Sendable {
    /// The column affinities that decide how SQLite converts a bound value before comparing.
    package enum Affinity: Hashable, Sendable {
        case integer, real, numeric, text, blob

        /// SQLite's rules for a declared type ("Determination Of Column Affinity").
        package init(declaredType: String) {
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
    package struct ColumnTraits: Hashable, Sendable {
        package var affinity: Affinity
        /// The column's collation is `BINARY`.
        package var isBinary: Bool
        /// The column has a default other than NULL. For a row stored before the column was
        /// added (`ALTER TABLE … ADD COLUMN … DEFAULT`), SQLite's pre-update hook reports NULL as
        /// the old value rather than the default, so an old NULL here is not known.
        package var nullMayBeDefault = false
        /// Set for a PostgreSQL column: its comparisons follow PostgreSQL's rules, not affinity.
        package var postgreSQL: PostgreSQLColumn?

        package init(affinity: Affinity, isBinary: Bool, nullMayBeDefault: Bool = false) {
            self.affinity = affinity
            self.isBinary = isBinary
            self.nullMayBeDefault = nullMayBeDefault
        }

        /// A PostgreSQL column of `type` (`pg_type.typname`), under `collation` (`collname`, nil
        /// for a type without one), which `isDeterministic` when `pg_collation.collisdeterministic`.
        ///
        /// A deterministic collation finds two texts equal only when their bytes are, so equality
        /// is decided for any; order only under "C" and "POSIX", which order by bytes. `bpchar`
        /// (blank-padded), `name`, numerics, floats (NaN equals NaN there), booleans and every other
        /// type are never decided: the values a change carries for them are placeholders.
        package static func postgreSQL(type: String, collation: String?, isDeterministic: Bool) -> ColumnTraits {
            let column: PostgreSQLColumn
            switch type {
            case "int2", "int4", "int8":
                column = .integer
            case "text", "varchar":
                column = isDeterministic ? .text(isOrderedByBytes: collation == "C" || collation == "POSIX") : .other
            default:
                column = .other
            }
            var traits = ColumnTraits(affinity: .blob, isBinary: false)
            traits.postgreSQL = column
            return traits
        }
    }

    /// What a PostgreSQL column's values can be compared as, exactly as the server does.
    package enum PostgreSQLColumn: Hashable, Sendable {
        /// `int2`, `int4` or `int8`: compared with bound integers as integers.
        case integer
        /// `text` or `varchar` under a deterministic collation: equal exactly when their bytes
        /// are; ordered by their bytes only when `isOrderedByBytes`.
        case text(isOrderedByBytes: Bool)
        /// Anything else: never decided.
        case other
    }

    /// How the database stores text: `BINARY` compares the stored bytes, whose order differs
    /// between UTF-8 and UTF-16 for some characters.
    package enum TextEncoding: Hashable, Sendable {
        case utf8, utf16le, utf16be
    }

    package enum Operator: Hashable, Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    }

    package indirect enum Node: Hashable, Sendable {
        case truth(Bool)
        case comparison(column: Int, Operator, DatabaseValue)
        case isNull(column: Int, negated: Bool)
        case inList(column: Int, [DatabaseValue])
        case and([Node])
        case or([Node])
        case not(Node)
        /// Something Swift cannot decide exactly.
        case unknown
    }

    /// SQL's three truth values, and a fourth for "cannot tell".
    package enum Truth {
        case yes, no, null, unknown
    }

    package let root: Node
    /// Per column of the table, in the order of the row's values.
    package let columns: [ColumnTraits]
    package let encoding: TextEncoding

    package init(root: Node, columns: [ColumnTraits], encoding: TextEncoding = .utf8) {
        self.root = root
        self.columns = columns
        self.encoding = encoding
    }

    /// True when SQLite could find the row (its values in table order) to satisfy the filter.
    public func mayMatch(_ row: [DatabaseValue]) -> Bool {
        mayMatch(row, isOld: false)
    }

    /// With `isOld`, the row is a changed row's values before the change, as the pre-update hook
    /// reports them: a NULL in a column with a default may stand for that default.
    package func mayMatch(_ row: [DatabaseValue], isOld: Bool) -> Bool {
        guard row.count == columns.count else { return true }
        switch evaluate(root, row, isOld) {
        case .yes, .unknown: return true
        case .no, .null: return false
        }
    }

    /// The column and values of an equality or `IN` that every matching row satisfies, with the
    /// values normalized as ``indexKey(_:)`` does: a row whose value in that column is none of
    /// them cannot match. Nil when the filter has no such condition that Swift decides exactly.
    public var equalityKeys: (column: Int, values: [DatabaseValue])? {
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
    /// SQLite finds `5.0 = 5`. SQLite compares an integer with a real exactly, at any magnitude,
    /// so they are equal exactly when the real is a whole number in `Int64`'s range that equals
    /// the integer, which is when their keys are equal.
    public static func indexKey(_ value: DatabaseValue) -> DatabaseValue {
        if case .real(let double) = value, let integer = Int64(exactly: double) { return .integer(integer) }
        return value
    }

    /// True when SQLite's equality with `value` in `column` holds only when the index keys are
    /// equal (Swift's text equality is coarser than SQLite's bytes, which only adds candidates
    /// that the evaluation then rejects).
    private func isIndexable(_ value: DatabaseValue, in column: Int) -> Bool {
        let traits = columns[column]
        if let postgreSQL = traits.postgreSQL {
            switch (postgreSQL, value) {
            case (.integer, .integer), (.text, .text): return true
            default: return false
            }
        }
        switch value {
        case .integer, .real: return traits.affinity != .text
        case .text: return (traits.affinity == .text || traits.affinity == .blob) && traits.isBinary
        case .null, .blob: return false
        }
    }

    // MARK: Evaluation

    private func evaluate(_ node: Node, _ row: [DatabaseValue], _ isOld: Bool) -> Truth {
        switch node {
        case .truth(let value):
            return value ? .yes : .no
        case .unknown:
            return .unknown
        case .isNull(let column, let negated):
            if isOld && row[column].isNull && columns[column].nullMayBeDefault { return .unknown }
            if columns[column].postgreSQL == .other { return .unknown }
            return row[column].isNull != negated ? .yes : .no
        case .comparison(let column, let op, let value):
            if isOld && row[column].isNull && columns[column].nullMayBeDefault { return .unknown }
            return compare(row[column], op, value, columns[column])
        case .inList(let column, let values):
            if isOld && row[column].isNull && columns[column].nullMayBeDefault { return .unknown }
            var truths: [Truth] = []
            truths.reserveCapacity(values.count)
            for value in values { truths.append(compare(row[column], .equal, value, columns[column])) }
            return Self.or(truths)
        case .and(let nodes):
            return Self.and(nodes.map { evaluate($0, row, isOld) })
        case .or(let nodes):
            return Self.or(nodes.map { evaluate($0, row, isOld) })
        case .not(let node):
            switch evaluate(node, row, isOld) {
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

    private func compare(_ stored: DatabaseValue, _ op: Operator, _ bound: DatabaseValue, _ traits: ColumnTraits)
        -> Truth
    {
        // A value of a type never decided is a placeholder, NULL included.
        if traits.postgreSQL == .other { return .unknown }
        if stored.isNull || bound.isNull { return .null }
        // SQLite binds a NaN as NULL.
        if case .real(let double) = bound, double.isNaN { return .null }
        let order: Int?
        if let postgreSQL = traits.postgreSQL {
            order = Self.order(stored, op, bound, postgreSQL)
        } else {
            order = self.order(stored, bound, traits)
        }
        guard let order else { return .unknown }
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
    private func order(_ stored: DatabaseValue, _ bound: DatabaseValue, _ traits: ColumnTraits) -> Int? {
        switch (stored, bound) {
        case (.integer(let a), .integer(let b)):
            return traits.affinity == .text ? nil : (a < b ? -1 : a == b ? 0 : 1)
        case (.real(let a), .real(let b)):
            guard traits.affinity != .text, !a.isNaN else { return nil }
            return a < b ? -1 : a == b ? 0 : 1
        case (.integer(let a), .real(let b)):
            guard traits.affinity != .text, !b.isNaN else { return nil }
            return Self.compare(a, b)
        case (.real(let a), .integer(let b)):
            guard traits.affinity != .text, !a.isNaN else { return nil }
            return -Self.compare(b, a)
        case (.text(let a), .text(let b)):
            guard (traits.affinity == .text || traits.affinity == .blob) && traits.isBinary else { return nil }
            switch encoding {
            case .utf8: return Self.bytes(a.utf8, b.utf8)
            case .utf16be: return Self.bytes(a.utf16, b.utf16)
            case .utf16le: return Self.bytes(a.utf16.lazy.map(\.byteSwapped), b.utf16.lazy.map(\.byteSwapped))
            }
        case (.blob(let a), .blob(let b)):
            return Self.bytes(a, b)
        default:
            return nil
        }
    }

    /// The sign of `stored - bound` as PostgreSQL compares them with `op`, or nil when Swift
    /// cannot tell: a column type or a bound value other than those it decides.
    private static func order(
        _ stored: DatabaseValue, _ op: Operator, _ bound: DatabaseValue, _ column: PostgreSQLColumn
    ) -> Int? {
        switch (column, stored, bound) {
        case (.integer, .integer(let a), .integer(let b)):
            return a < b ? -1 : a == b ? 0 : 1
        case (.text(let isOrderedByBytes), .text(let a), .text(let b)):
            guard isOrderedByBytes || op == .equal || op == .notEqual else { return nil }
            return bytes(a.utf8, b.utf8)
        default:
            return nil
        }
    }

    /// The sign of `integer - real`, exact at any magnitude, as SQLite's `sqlite3IntFloatCompare`
    /// finds it. (Converting the integer to a double rounds beyond 2^53.)
    package static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        // In range: the conversion truncates toward zero, and cannot trap.
        let truncated = Int64(real)
        if integer != truncated { return integer < truncated ? -1 : 1 }
        // Equal to the whole part: the fraction (below 2^52 only, where it is exact) decides.
        let fraction = real - Double(truncated)
        return fraction > 0 ? -1 : fraction < 0 ? 1 : 0
    }

    /// memcmp order of the code units (in memory order), the shorter first on a common prefix:
    /// SQLite's for BINARY text and blobs. Little-endian UTF-16 is compared as its units with
    /// their bytes swapped, which orders them as memcmp orders their bytes.
    private static func bytes<C: Collection>(_ a: C, _ b: C) -> Int where C.Element: FixedWidthInteger {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            }
        }
    }
}
