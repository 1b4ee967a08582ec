import CSQLite
import QueryBuilder
import SQLite

/// A column named by a dotted path that follows the foreign keys the schema declares.
///
/// On `responses(hero_id REFERENCES heroes(id))`, `hero_id.name` is the `name` of the hero each
/// response refers to, and `hero_id.team_id.city` goes one table further. Every step is checked:
/// the first against the table, each next one against the table the previous step's foreign key
/// refers to; a wrong step is a ``FilterError`` that points at it and suggests the closest name.
///
/// Each hop renders as a lookup by the parent key, a scalar subquery that SQLite runs with that
/// key's index (a foreign key must refer to a primary key or a unique column); the next hop is
/// nested inside it:
///
///     (SELECT "responses.hero_id"."name" FROM "heroes" AS "responses.hero_id"
///      WHERE "responses.hero_id"."id" = "responses"."hero_id")
///
/// A row whose foreign key is null, or refers to no row, reads null, as with a left join, so the
/// result has exactly the rows of the table. The expression is an ordinary one: filters, sorts,
/// selections, facets and `DELETE … WHERE` all take it, and `watch` observes the tables it reads.
///
/// A foreign key of several columns is followed from any of its columns, matching them all
/// (`datum_code.name` on `geodetic_crs(datum_auth_name, datum_code) REFERENCES
/// geodetic_datum(auth_name, code)`); a column in several foreign keys is refused, since the
/// name cannot say which to follow.
///
/// A row's parent is the one SQLite's own foreign-key check finds: the key compared under the
/// parent column's collation, with the parent column's affinity applied to the child's value.
/// Where a plain comparison of the two columns would differ (a `NOCASE` parent key, an INTEGER
/// child of a TEXT key), the child's value is written so that it does not: `+value` has no
/// affinity, so the key's applies, and `value COLLATE "NOCASE"` compares as the key does. A key
/// that SQLite itself refuses (a "foreign key mismatch": parent columns with no unique index,
/// or that do not exist) is a usage error, since a row could have several parents or none.
struct ForeignKeyPath {
    /// The most foreign keys one name follows. Real schemas need two or three; the bound keeps
    /// a generated name from nesting subqueries without end.
    static let maximumHops = 8

    /// One dotted part of a name, where it was written (offsets in Unicode scalars).
    struct Step: Equatable {
        var name: String
        var position: Int
        var length: Int
    }

    /// One foreign key followed: `table(columns)` refers to `parent(keys)`, pairwise.
    struct Hop: Equatable {
        var table: String
        var columns: [String]
        var parent: String
        var keys: [String]
        /// For each column, how its value is written to match its key as SQLite's check does.
        var matches: [KeyMatch]
    }

    /// How a child column's value is written so that comparing it with its parent key gives
    /// what SQLite's foreign-key check gives.
    struct KeyMatch: Equatable {
        /// The key's affinity must apply to the value, where a comparison of the two columns
        /// would apply another (numeric for either side's, none between text and none).
        var takesKeyAffinity = false
        /// The key's collation, when the child column's is another: a membership (`IN`)
        /// compares with its left side's, the child's.
        var collation: String?

        /// The value as the lookup compares it, `key = value`: the key, on the left, gives the
        /// collation.
        func lookupValue(_ value: SQLExpression) -> SQLExpression {
            takesKeyAffinity ? Self.withoutAffinity(value) : value
        }

        /// The value as a membership tests it, `value IN (SELECT key …)`.
        func membershipValue(_ value: SQLExpression) -> SQLExpression {
            let value = lookupValue(value)
            guard let collation else { return value }
            return SQLExpression(
                SQLFragment(value.fragment.segments + [.sql(" COLLATE "), .foreignIdentifier(collation)]),
                precedence: .atom)
        }

        /// `+value`: the same value, with no affinity (SQLite's rule for any operator on a column).
        private static func withoutAffinity(_ value: SQLExpression) -> SQLExpression {
            SQLExpression(SQLFragment([.sql("+")] + value.fragment.segments), precedence: .atom)
        }
    }

    /// The foreign keys followed, in order; empty for a plain column.
    let hops: [Hop]
    /// The column at the end of the path, in the last hop's parent (or in the table itself).
    let column: TableSchema.ColumnInfo
    /// The column's value for each row of the table: the column itself, or nested lookups.
    let expression: SQLExpression
    /// The name as the schema spells each step, joined by dots: `hero_id.name`.
    let name: String
    /// The table's name, then each hop's alias: the path so far, after the table's name.
    private let aliases: [String]

    /// Resolves `steps` from `schema`'s table. Errors quote `text`, the `option` it came from,
    /// and point at the step that failed.
    init(_ steps: [Step], from schema: TableSchema, in db: Database, text: String, option: String) throws {
        precondition(!steps.isEmpty, "a column path has at least one step")
        func failure(_ reason: FilterError.Reason, at step: Step) -> FilterError {
            FilterError(reason: reason, expression: text, position: step.position, length: step.length, option: option)
        }
        if steps.count - 1 > Self.maximumHops {
            let step = steps[Self.maximumHops + 1]
            throw failure(
                .limit(
                    "this name follows \(steps.count - 1) foreign keys; sqlq follows at most \(Self.maximumHops) in one name"
                ),
                at: step)
        }
        var table = schema
        var hops: [Hop] = []
        var names: [String] = []
        var column: TableSchema.ColumnInfo
        var index = 0
        while true {
            let step = steps[index]
            do {
                column = try table.column(step.name, in: db)
            } catch let error as SchemaError {
                throw failure(.unknownColumn(error), at: step)
            }
            names.append(column.name)
            index += 1
            if index == steps.count { break }
            let hop: Hop
            do {
                hop = try Self.foreignKey(of: column.name, in: table.name, db: db)
                table = try TableSchema(db, table: hop.parent)
            } catch let error as ForeignKeyError {
                throw failure(.foreignKey(error.message + ", so \"\(steps[index].name)\" cannot follow it"), at: step)
            } catch let error as SchemaError {
                throw failure(
                    .foreignKey(
                        "the foreign key of \"\(column.name)\" refers to a table the database lacks (\(error.name))"),
                    at: step)
            }
            hops.append(hop)
        }
        self.hops = hops
        self.column = column
        self.name = names.joined(separator: ".")
        // Each hop's table is aliased by the path so far, after the table's name: the aliases
        // differ from the outer table's name and from each other, so a table that refers to
        // itself stays unambiguous, and each lookup refers to the row of the one around it.
        var aliases = [schema.name]
        for step in names.dropLast() { aliases.append(aliases[aliases.count - 1] + "." + step) }
        self.aliases = aliases
        if hops.isEmpty {
            expression = Column(column.name).sqlExpression
            return
        }
        // Built from the last hop outwards: each lookup selects the next one.
        var selected = SQLExpression.column(column.name, of: aliases[hops.count])
        for (offset, hop) in hops.enumerated().reversed() {
            let keys = zip(hop.keys, zip(hop.columns, hop.matches)).map { key, column in
                (key: key, value: column.1.lookupValue(.column(column.0, of: aliases[offset])))
            }
            selected = .lookup(selected, in: hop.parent, as: aliases[offset + 1], keys: keys)
        }
        expression = selected
    }

    /// The rows whose value passes `test`, for a test that fails on null (not `IS NULL`) and
    /// stands where no NOT negates it: each hop a membership in the keys of the parent's rows
    /// that pass, `"hero_id" IN (SELECT "id" FROM "heroes" … WHERE "name" = ?)`, which SQLite can
    /// run from an index on the foreign key. Exactly the rows `test(expression)` selects there.
    func rows(where test: (SQLExpression) -> SQLExpression) -> SQLExpression {
        guard !hops.isEmpty else { return test(expression) }
        var predicate = test(.column(column.name, of: aliases[hops.count]))
        for (offset, hop) in hops.enumerated().reversed() {
            predicate = .membership(
                of: zip(hop.columns, hop.matches).map { $1.membershipValue(.column($0, of: aliases[offset])) },
                inKeys: hop.keys, of: hop.parent, as: aliases[offset + 1], where: predicate)
        }
        return predicate
    }

    /// Resolves a name as an option's term (`--columns`, `--sort`, `--facet`): the table's
    /// column of that very name, or else its parts split on dots. A part in double quotes, as in
    /// `--where` and SQL (`""` for a quote), is one name, dots and all: `"my.team".city`.
    /// `position` is where the name starts in `text`.
    static func resolve(
        _ name: String, at position: Int, in text: String, option: String, from schema: TableSchema, db: Database
    ) throws -> ForeignKeyPath {
        let steps = try steps(
            of: name, at: position, in: text, option: option,
            isColumn: schema.columns.contains(where: { $0.name.sqliteNameMatches(name) }))
        return try ForeignKeyPath(steps, from: schema, in: db, text: text, option: option)
    }

    /// The steps of an option's term: the whole name when it `isColumn` (a column of the table
    /// is named so, dots and all), else its parts split on dots, a quoted part being one name.
    static func steps(of name: String, at position: Int, in text: String, option: String, isColumn: Bool) throws
        -> [Step]
    {
        let steps: [Step]
        if isColumn {
            steps = [Step(name: name, position: position, length: name.unicodeScalars.count)]
        } else if name.contains("\"") {
            steps = try quotedSteps(name, at: position, in: text, option: option)
        } else if name.contains(".") {
            var parts: [Step] = []
            var offset = position
            for part in name.split(separator: ".", omittingEmptySubsequences: false) {
                let length = part.unicodeScalars.count
                if part.isEmpty {
                    throw FilterError(
                        reason: .syntax("a column name is missing around \".\""), expression: text,
                        position: max(position, offset - 1), length: 1, option: option)
                }
                parts.append(Step(name: String(part), position: offset, length: length))
                offset += length + 1
            }
            steps = parts
        } else {
            steps = [Step(name: name, position: position, length: name.unicodeScalars.count)]
        }
        return steps
    }

    /// The dotted parts of a name in which some are quoted.
    private static func quotedSteps(_ name: String, at position: Int, in text: String, option: String) throws -> [Step]
    {
        func failure(_ message: String, at offset: Int) -> FilterError {
            FilterError(
                reason: .syntax(message), expression: text, position: position + offset, length: 1, option: option)
        }
        let scalars = Array(name.unicodeScalars)
        var steps: [Step] = []
        var index = 0
        while true {
            let start = index
            var part = String.UnicodeScalarView()
            if index < scalars.count, scalars[index] == "\"" {
                index += 1
                while true {
                    guard index < scalars.count else { throw failure("this quoted name is not closed", at: start) }
                    if scalars[index] == "\"" {
                        guard index + 1 < scalars.count, scalars[index + 1] == "\"" else { break }
                        index += 1
                    }
                    part.append(scalars[index])
                    index += 1
                }
                index += 1
            } else {
                while index < scalars.count, scalars[index] != "." {
                    if scalars[index] == "\"" { throw failure("a quote can only start a name", at: index) }
                    part.append(scalars[index])
                    index += 1
                }
            }
            if part.isEmpty {
                throw failure("a column name is missing here", at: min(start, max(scalars.count - 1, 0)))
            }
            steps.append(Step(name: String(part), position: position + start, length: index - start))
            guard index < scalars.count else { return steps }
            guard scalars[index] == "." else { throw failure("expected \".\" after a quoted name", at: index) }
            index += 1
        }
    }

    /// Why a column cannot be followed.
    private struct ForeignKeyError: Error {
        var message: String
    }

    /// The foreign keys `table` declares, as SQLite lists them: each key's columns by key id, and
    /// the ids in declaration order.
    static func declaredForeignKeys(of table: String, in db: Database) throws -> (
        keys: [Int64: [(parent: String, from: String, to: String?)]], order: [Int64]
    ) {
        let rows = try db.fetchAll(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq", [.text(table)])
        var keys: [Int64: [(parent: String, from: String, to: String?)]] = [:]
        var order: [Int64] = []
        for row in rows {
            let id: Int64 = try row[0]
            if keys[id] == nil { order.append(id) }
            keys[id, default: []].append((try row[1], try row[2], try row[3]))
        }
        return (keys, order)
    }

    /// The foreign key of `table` that `column` is part of.
    private static func foreignKey(of column: String, in table: String, db: Database) throws -> Hop {
        let (keys, order) = try declaredForeignKeys(of: table, in: db)
        func describe(_ id: Int64) -> String {
            let parts = keys[id]!
            let to = parts.compactMap(\.to)
            return "(" + parts.map(\.from).joined(separator: ", ") + ") → " + parts[0].parent
                + (to.count == parts.count ? "(" + to.joined(separator: ", ") + ")" : "")
        }
        let matching = order.filter { id in keys[id]!.contains { $0.from.sqliteNameMatches(column) } }
        guard let id = matching.first else {
            let declared = order.map(describe)
            throw ForeignKeyError(
                message: "column \"\(column)\" of \"\(table)\" is not a foreign key"
                    + (declared.isEmpty
                        ? " (\"\(table)\" declares none)"
                        : " (the foreign keys of \"\(table)\": " + declared.joined(separator: "; ") + ")"))
        }
        if matching.count > 1 {
            throw ForeignKeyError(
                message: "column \"\(column)\" of \"\(table)\" is in \(matching.count) foreign keys ("
                    + matching.map(describe).joined(separator: "; ")
                    + "), and its name cannot say which to follow; name a column that is in only one")
        }
        let parts = keys[id]!
        let parent = try db.checkTable(parts[0].parent)
        let columns = parts.map(\.from)
        var declared = parts.compactMap(\.to)
        if declared.count != parts.count {
            // No parent columns declared: the key is the parent's primary key.
            declared = try db.fetchAll(
                String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(parent)])
            guard declared.count == parts.count else {
                throw ForeignKeyError(
                    message: "the foreign key \(describe(id)) refers to the primary key of \"\(parent)\", which "
                        + (declared.isEmpty
                            ? "it does not declare" : "has \(declared.count) columns, not \(parts.count)"))
            }
        }
        // The connection's handle, which the statement's leads to; the statement stays alive
        // while it is asked, since releasing it finalizes it.
        let statement = try db.makeStatement("SELECT 1")
        let connection = withExtendedLifetime(statement) { sqlite3_db_handle(statement.sqliteHandle) }
        var matches: [KeyMatch] = []
        var collations: [String] = []
        for (from, key) in zip(columns, declared) {
            guard let parentColumn = ColumnTraits(connection, table: parent, column: key) else {
                let names = try db.fetchAll(String.self, "SELECT name FROM pragma_table_info(?)", [.text(parent)])
                throw ForeignKeyError(
                    message: "the foreign key \(describe(id)) refers to column \"\(key)\", which \"\(parent)\" lacks "
                        + "(its columns: \(names.joined(separator: ", ")))")
            }
            let child = ColumnTraits(connection, table: table, column: from) ?? ColumnTraits()
            matches.append(
                KeyMatch(
                    takesKeyAffinity: !parentColumn.affinity.isNumeric
                        && (child.affinity.isNumeric || (parentColumn.affinity == .text && child.affinity == .blob)),
                    collation: parentColumn.collation.uppercased() == child.collation.uppercased()
                        ? nil : parentColumn.collation))
            collations.append(parentColumn.collation)
        }
        guard try isParentKey(declared, collations: collations, of: parent, db: db) else {
            throw ForeignKeyError(
                message: "the foreign key \(describe(id)) is what SQLite calls a \"foreign key mismatch\": "
                    + "\"\(parent)\" has no unique index on exactly (\(declared.joined(separator: ", "))) "
                    + "with the columns' own collations, nor is that its primary key, so a row could refer to several")
        }
        return Hop(table: table, columns: columns, parent: parent, keys: declared, matches: matches)
    }

    /// A column's affinity and collation, as SQLite declares them.
    private struct ColumnTraits {
        var affinity = TableSchema.Affinity.blob
        var collation = "BINARY"

        init() {}

        /// Nil when the table has no such column.
        init?(_ connection: OpaquePointer?, table: String, column: String) {
            var type: UnsafePointer<CChar>?
            var collation: UnsafePointer<CChar>?
            guard
                sqlite3_table_column_metadata(connection, nil, table, column, &type, &collation, nil, nil, nil)
                    == SQLITE_OK
            else { return nil }
            affinity = TableSchema.Affinity(declaredType: type.map { String(cString: $0) } ?? "")
            self.collation = collation.map { String(cString: $0) } ?? "BINARY"
        }
    }

    /// Whether SQLite takes `keys` as a parent key of `parent` (its `sqlite3FkLocateIndex`):
    /// the rowid's alias, or the columns of a unique index that covers no fewer rows (not
    /// partial), each with the column's own collation.
    private static func isParentKey(
        _ keys: [String], collations: [String], of parent: String, db: Database
    ) throws -> Bool {
        let folded = keys.map(\.sqliteFolded)
        if keys.count == 1 {
            let primary = try db.fetchAll("SELECT name, type FROM pragma_table_info(?) WHERE pk > 0", [.text(parent)])
            if primary.count == 1, try (primary[0][0] as String).sqliteFolded == folded[0],
                try (primary[0][1] as String).sqliteFolded == "integer"
            {
                return true
            }
        }
        let indexes = try db.fetchAll(
            String.self, "SELECT name FROM pragma_index_list(?) WHERE \"unique\" AND NOT partial", [.text(parent)])
        for index in indexes {
            let columns = try db.fetchAll(
                "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno", [.text(index)])
            guard columns.count == keys.count else { continue }
            var covered = Set<Int>()
            for column in columns {
                // An expression has no name, and makes no parent key.
                guard let name = try column[0] as String?, let key = folded.firstIndex(of: name.sqliteFolded),
                    try (column[1] as String).sqliteFolded == collations[key].sqliteFolded
                else { break }
                covered.insert(key)
            }
            if covered.count == keys.count { return true }
        }
        return false
    }
}

extension TableSchema.Affinity {
    /// INTEGER, REAL or NUMERIC: what a comparison applies to the other side's text.
    fileprivate var isNumeric: Bool { self == .integer || self == .real || self == .numeric }
}
