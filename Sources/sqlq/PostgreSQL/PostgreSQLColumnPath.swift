#if PostgreSQL
    import PostgreSQL
    import QueryBuilder
    import SQLite

    /// A column of a PostgreSQL table named by a dotted path that follows its foreign keys:
    /// ``ForeignKeyPath`` on PostgreSQL, with the same checks, errors and meaning.
    ///
    /// Each hop is a lookup by the parent key, a scalar subquery (a row whose key is null, or
    /// refers to no row, reads null, as with a left join), or, for a test that fails on null
    /// outside any NOT, a membership in the keys of the parent rows that pass: the two forms
    /// SQLite's paths take, in the same places. Parent tables are schema-qualified; each hop's
    /// table is aliased by its depth (`"1"`, `"2"`…), short enough never to be truncated to
    /// PostgreSQL's 63 bytes, where SQLite's aliases spell the path.
    struct PostgreSQLColumnPath {
        struct Hop {
            var key: PostgreSQLForeignKeys.ForeignKey
            var parent: PostgreSQLTable
        }

        /// The foreign keys followed, in order; empty for a plain column.
        let hops: [Hop]
        /// The column at the end of the path.
        let column: PostgreSQLTable.Column
        /// The name as the catalog spells each step, joined by dots.
        let name: String
        /// The value for each row of the table: the column itself, or nested lookups (a float's
        /// NaN read as NULL, as SQLite stores it).
        let expression: SQLExpression
        /// ``expression`` as comparisons and sorts see it (``PostgreSQLTable/Form``): text byte
        /// by byte, `COLLATE "C"`.
        let compared: SQLExpression
        /// The table's name, then each hop's alias.
        private let aliases: [String]

        /// Resolves `steps` from `table`. Errors quote `text`, the `option` it came from, and
        /// point at the step that failed.
        init(
            _ steps: [ForeignKeyPath.Step], from table: PostgreSQLTable, foreignKeys: PostgreSQLForeignKeys,
            text: String, option: String
        ) throws {
            precondition(!steps.isEmpty, "a column path has at least one step")
            func failure(_ reason: FilterError.Reason, at step: ForeignKeyPath.Step) -> FilterError {
                FilterError(
                    reason: reason, expression: text, position: step.position, length: step.length, option: option)
            }
            let maximum = ForeignKeyPath.maximumHops
            if steps.count - 1 > maximum {
                throw failure(
                    .limit(
                        "this name follows \(steps.count - 1) foreign keys; sqlq follows at most \(maximum) in one name"
                    ),
                    at: steps[maximum + 1])
            }
            var current = table
            var hops: [Hop] = []
            var names: [String] = []
            var column: PostgreSQLTable.Column
            var index = 0
            while true {
                let step = steps[index]
                do {
                    column = try current.column(step.name)
                } catch let error as SchemaError {
                    throw failure(.unknownColumn(error), at: step)
                }
                names.append(column.name)
                index += 1
                if index == steps.count { break }
                do {
                    let key = try foreignKeys.foreignKey(of: column.name, in: current)
                    current = try foreignKeys.parent(of: key)
                    hops.append(Hop(key: key, parent: current))
                } catch let error as PostgreSQLForeignKeys.Refusal {
                    throw failure(
                        .foreignKey(error.message + ", so \"\(steps[index].name)\" cannot follow it"), at: step)
                }
            }
            self.hops = hops
            self.column = column
            self.name = names.joined(separator: ".")
            // A digit alias cannot be the table's own name, unless that name is digits too.
            let prefix = table.name.allSatisfy(\.isNumber) ? "hop" : ""
            aliases = [table.name] + hops.indices.map { prefix + String($0 + 1) }
            if hops.isEmpty {
                expression = Self.notANumberAsNull(Column(column.name).sqlExpression, column)
                compared = PostgreSQLFilter.compared(column, of: table)
                return
            }
            var selected = SQLExpression.column(column.name, of: aliases[hops.count])
            for (offset, hop) in hops.enumerated().reversed() {
                selected = Self.lookup(selected, hop: hop, from: aliases[offset], as: aliases[offset + 1])
            }
            expression = Self.notANumberAsNull(selected, column)
            compared = Self.collated(selected, column)
        }

        /// The table's own column.
        init(_ column: PostgreSQLTable.Column, of table: PostgreSQLTable) {
            hops = []
            self.column = column
            name = column.name
            aliases = [table.name]
            expression = Self.notANumberAsNull(Column(column.name).sqlExpression, column)
            compared = PostgreSQLFilter.compared(column, of: table)
        }

        /// Resolves an option's term (`--columns`, `--sort`, `--facet`) as ``ForeignKeyPath``
        /// does: the table's column of that very name, or else its parts split on dots, a part in
        /// double quotes being one name.
        static func resolve(
            _ name: String, at position: Int, in text: String, option: String, from table: PostgreSQLTable,
            foreignKeys: PostgreSQLForeignKeys
        ) throws -> PostgreSQLColumnPath {
            let steps = try ForeignKeyPath.steps(
                of: name, at: position, in: text, option: option,
                isColumn: Database.match(name, in: table.columns.map(\.name)) != nil)
            let path = try PostgreSQLColumnPath(
                steps, from: table, foreignKeys: foreignKeys, text: text, option: option)
            if option != "--columns", path.column.kind == .other, path.column.form == .value {
                try path.checkOrder(foreignKeys.connection, at: position, length: name.count, in: text, option: option)
            }
            return path
        }

        /// Asks the server whether the column's type has the equality and order that a sort or a
        /// facet needs (JSON has neither), so that one it lacks is a usage error naming the column.
        private func checkOrder(
            _ connection: PostgreSQLConnection, at position: Int, length: Int, in text: String, option: String
        ) throws {
            let type = column.baseType
            do {
                _ = try connection.fetchAll(
                    "SELECT v FROM (SELECT CAST(NULL AS \(type)) AS v) AS probe GROUP BY v ORDER BY v")
            } catch let error as PostgreSQLError where error.sqlState?.hasPrefix("42") == true {
                throw FilterError(
                    reason: .typeMismatch(
                        "type mismatch: column \"\(name)\" (\(column.type)) cannot be sorted or counted "
                            + "on PostgreSQL: \(error.message)"),
                    expression: text, position: position, length: length, option: option)
            }
        }

        /// The rows whose value passes `test`, for a test that fails on null and that no NOT
        /// encloses: each hop a membership in the keys of the parent's rows that pass. `test` is
        /// given the column as it is and as comparisons see it.
        func rows(where test: (_ value: SQLExpression, _ compared: SQLExpression) -> SQLExpression) -> SQLExpression {
            guard !hops.isEmpty else { return test(expression, compared) }
            let value = SQLExpression.column(column.name, of: aliases[hops.count])
            var predicate = test(Self.notANumberAsNull(value, column), Self.collated(value, column))
            for (offset, hop) in hops.enumerated().reversed() {
                let alias = aliases[offset + 1]
                var segments: [SQLFragment.Segment] = []
                let values = zip(hop.key.columns, hop.key.collations).map { column, collation in
                    Self.child(column, of: aliases[offset], collation: collation)
                }
                if values.count > 1 { segments.append(.sql("(")) }
                for (index, value) in values.enumerated() {
                    if index > 0 { segments.append(.sql(", ")) }
                    segments += value.fragment.segments
                }
                if values.count > 1 { segments.append(.sql(")")) }
                segments.append(.sql(" IN (SELECT "))
                for (index, key) in hop.key.keys.enumerated() {
                    if index > 0 { segments.append(.sql(", ")) }
                    segments += [.foreignIdentifier(alias), .sql("."), .foreignIdentifier(key)]
                }
                segments.append(.sql(" FROM "))
                segments += Self.from(hop.parent, as: alias)
                segments.append(.sql(" WHERE "))
                segments += predicate.fragment.segments
                segments.append(.sql(")"))
                predicate = SQLExpression(SQLFragment(segments), precedence: .comparison)
            }
            return predicate
        }

        /// `(SELECT selected FROM "schema"."parent" AS "alias" WHERE "alias"."key" = "outer"."column" AND …)`.
        private static func lookup(_ selected: SQLExpression, hop: Hop, from outer: String, as alias: String)
            -> SQLExpression
        {
            var segments: [SQLFragment.Segment] = [.sql("(SELECT ")]
            segments += selected.fragment.segments
            segments.append(.sql(" FROM "))
            segments += from(hop.parent, as: alias)
            for (index, key) in hop.key.keys.enumerated() {
                segments += [
                    .sql(index == 0 ? " WHERE " : " AND "), .foreignIdentifier(alias), .sql("."),
                    .foreignIdentifier(key), .sql(" = "),
                ]
                segments +=
                    child(hop.key.columns[index], of: outer, collation: hop.key.collations[index])
                    .fragment.segments
            }
            segments.append(.sql(")"))
            return SQLExpression(SQLFragment(segments), precedence: .atom)
        }

        private static func from(_ table: PostgreSQLTable, as alias: String) -> [SQLFragment.Segment] {
            [
                .foreignIdentifier(table.schema), .sql("."), .foreignIdentifier(table.name), .sql(" AS "),
                .foreignIdentifier(alias),
            ]
        }

        /// A child column as its key compares it: under the key's collation when the two differ.
        private static func child(
            _ column: String, of table: String, collation: (schema: String, name: String)?
        ) -> SQLExpression {
            let value = SQLExpression.column(column, of: table)
            guard let collation else { return value }
            return SQLExpression(
                SQLFragment(
                    [.sql("(")] + value.fragment.segments + [
                        .sql(" COLLATE "), .foreignIdentifier(collation.schema), .sql("."),
                        .foreignIdentifier(collation.name), .sql(")"),
                    ]), precedence: .atom)
        }

        /// `value`, with a float column's NaN as NULL: SQLite stores a NaN as NULL, so that is
        /// how it compares, sorts, counts and prints there.
        static func notANumberAsNull(_ value: SQLExpression, _ column: PostgreSQLTable.Column) -> SQLExpression {
            guard column.kind == .float else { return value }
            return SQLExpression(
                SQLFragment(
                    [.sql("NULLIF(")] + value.fragment.segments + [.sql(", 'NaN'::double precision)")]),
                precedence: .atom)
        }

        /// `value` in its column's ``PostgreSQLTable/Form``: as comparisons, sorts and facets
        /// read it.
        static func collated(_ value: SQLExpression, _ column: PostgreSQLTable.Column) -> SQLExpression {
            let value = notANumberAsNull(value, column)
            let (before, after): (String, String)
            switch column.form {
            case .value: return value
            case .text: (before, after) = ("(", " COLLATE \"C\")")
            case .textForm: (before, after) = ("(", "::text COLLATE \"C\")")
            case .printedDouble: (before, after) = ("(", "::text::double precision)")
            }
            return SQLExpression(
                SQLFragment([.sql(before)] + value.fragment.segments + [.sql(after)]), precedence: .atom)
        }
    }
#endif
