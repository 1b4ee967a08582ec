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
            let keys = zip(hop.keys, hop.columns).map { key, from in
                (key: key, value: SQLExpression.column(from, of: aliases[offset]))
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
                of: hop.columns.map { .column($0, of: aliases[offset]) }, inKeys: hop.keys, of: hop.parent,
                as: aliases[offset + 1], where: predicate)
        }
        return predicate
    }

    /// Resolves a name as an option's term (`--columns`, `--sort`, `--facet`): split on dots,
    /// unless the table has a column with that very name. `position` is where the name starts in
    /// `text`.
    static func resolve(
        _ name: String, at position: Int, in text: String, option: String, from schema: TableSchema, db: Database
    ) throws -> ForeignKeyPath {
        var steps: [Step] = []
        if name.contains("."), !schema.columns.contains(where: { $0.name.sqliteNameMatches(name) }) {
            var offset = position
            for part in name.split(separator: ".", omittingEmptySubsequences: false) {
                let length = part.unicodeScalars.count
                if part.isEmpty {
                    throw FilterError(
                        reason: .syntax("a column name is missing around \".\""), expression: text,
                        position: max(position, offset - 1), length: 1, option: option)
                }
                steps.append(Step(name: String(part), position: offset, length: length))
                offset += length + 1
            }
        } else {
            steps = [Step(name: name, position: position, length: name.unicodeScalars.count)]
        }
        return try ForeignKeyPath(steps, from: schema, in: db, text: text, option: option)
    }

    /// Why a column cannot be followed.
    private struct ForeignKeyError: Error {
        var message: String
    }

    /// The foreign key of `table` that `column` is part of.
    private static func foreignKey(of column: String, in table: String, db: Database) throws -> Hop {
        let rows = try db.fetchAll(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq", [.text(table)])
        var keys: [Int64: [(parent: String, from: String, to: String?)]] = [:]
        var order: [Int64] = []
        for row in rows {
            let id: Int64 = try row[0]
            if keys[id] == nil { order.append(id) }
            keys[id, default: []].append((try row[1], try row[2], try row[3]))
        }
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
        let parent = parts[0].parent
        let columns = parts.map(\.from)
        let declared = parts.compactMap(\.to)
        if declared.count == parts.count {
            return Hop(table: table, columns: columns, parent: parent, keys: declared)
        }
        // No parent columns declared: the key is the parent's primary key.
        let primary = try db.fetchAll(
            String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(parent)])
        guard primary.count == parts.count else {
            throw ForeignKeyError(
                message: "the foreign key \(describe(id)) refers to the primary key of \"\(parent)\", which "
                    + (primary.isEmpty ? "it does not declare" : "has \(primary.count) columns, not \(parts.count)"))
        }
        return Hop(table: table, columns: columns, parent: parent, keys: primary)
    }
}
