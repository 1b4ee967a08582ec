#if PostgreSQL
    import QueryBuilder
    import SQLite

    /// One `--facet` on PostgreSQL: ``Facet``'s counts, in its order (most common first, equal
    /// counts in the column's order: NULL first, text byte by byte), for ``FacetWriter``.
    struct PostgreSQLFacet {
        let path: PostgreSQLColumnPath
        /// How many values are shown; one more is fetched to tell whether more exist.
        let size: Int

        /// The facets of `names` (each once, in the order given), checked against the catalog.
        static func resolve(
            _ names: [String], size: Int, table: PostgreSQLTable, foreignKeys: PostgreSQLForeignKeys
        ) throws -> [PostgreSQLFacet] {
            var facets: [PostgreSQLFacet] = []
            for name in names {
                guard !name.isEmpty else {
                    throw FilterError(
                        reason: .syntax("a column name is missing"), expression: name, position: 0, length: 1,
                        option: "--facet")
                }
                let path = try PostgreSQLColumnPath.resolve(
                    name, at: 0, in: name, option: "--facet", from: table, foreignKeys: foreignKeys)
                if !facets.contains(where: { $0.path.name == path.name }) {
                    facets.append(PostgreSQLFacet(path: path, size: size))
                }
            }
            return facets
        }

        /// The statement that counts this facet's values among the rows of `table` that match
        /// `filter` (every row when nil), in PostgreSQL's dialect.
        ///
        /// The values are grouped and ordered as the column's type (text under `COLLATE "C"`,
        /// SQLite's BINARY order), then read as their text form, as the rows are.
        func statement(table: PostgreSQLTable, filter: SQLExpression?) -> SQLRenderer {
            var segments: [SQLFragment.Segment] = [
                .sql("SELECT \"facet\".\"value\"::text, \"facet\".\"count\" FROM (SELECT ")
            ]
            segments += path.compared.fragment.segments
            segments += [.sql(" AS \"value\", count(*) AS \"count\" FROM "), .identifier(table.name)]
            if let filter {
                segments.append(.sql(" WHERE "))
                segments += filter.fragment.segments
            }
            // Qualified: a bare "value" in ORDER BY would be the selected text.
            segments.append(
                .sql(
                    " GROUP BY 1) AS \"facet\" ORDER BY \"facet\".\"count\" DESC, \"facet\".\"value\" ASC NULLS FIRST LIMIT "
                ))
            // One more than shown tells whether more exist.
            segments.append(.binding(.integer(Int64(size < Int.max ? size + 1 : size))))
            let renderer = SQLRenderer(dialect: .postgreSQL)
            renderer.append(SQLFragment(segments))
            return renderer
        }

        /// The counts that ``statement(table:filter:)`` read, each value shown as the rows show
        /// the column's values.
        func counts(_ rows: [Row], json: Bool) -> Facet.Counts {
            var values: [Facet.Value] = []
            for row in rows {
                let text = row.value(at: 0)
                let count: Int64 = if case .integer(let count) = row.value(at: 1) { count } else { 0 }
                values.append(
                    Facet.Value(
                        value: text, count: count,
                        shown: PostgreSQLCommands.cell(text, kind: path.column.kind, json: json)))
            }
            let hasMore = values.count > size
            if hasMore { values.removeLast(values.count - size) }
            return Facet.Counts(column: path.name, values: values, hasMore: hasMore)
        }
    }
#endif
