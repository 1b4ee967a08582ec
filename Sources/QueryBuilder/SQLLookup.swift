// Expressions that read another table: the rendering of a followed foreign key.

extension SQLExpression {
    /// The value of `selected` in the row of `table` whose `keys` equal their values, or NULL
    /// when no row matches: a scalar subquery, `(SELECT selected FROM "table" AS "alias" WHERE
    /// "alias"."key" = value AND …)`.
    ///
    /// `alias` names the looked-up table inside the subquery: `selected` refers to its columns
    /// with ``column(_:of:)``, and the values may refer to the outer query's row the same way,
    /// even when both are the same table. When the keys are the table's primary key or a unique
    /// index, SQLite finds the row with that index. Lookups nest: `selected` may itself be a
    /// lookup that refers to this one's alias.
    ///
    /// ```swift
    /// // (SELECT "h"."name" FROM "heroes" AS "h" WHERE "h"."id" = "responses"."hero_id")
    /// SQLExpression.lookup(
    ///     .column("name", of: "h"), in: "heroes", as: "h",
    ///     keys: [("id", .column("hero_id", of: "responses"))])
    /// ```
    ///
    /// The names are not checked against the schema (SQLite's `QueryInterfaceRequest.checkSchema(_:)`
    /// skips them): check them first when they come from users.
    public static func lookup(
        _ selected: SQLExpression, in table: String, as alias: String, keys: [(key: String, value: SQLExpression)]
    ) -> SQLExpression {
        var segments: [SQLFragment.Segment] = [.sql("(SELECT ")]
        segments += selected.fragment.segments
        segments += [.sql(" FROM "), .foreignIdentifier(table), .sql(" AS "), .foreignIdentifier(alias)]
        for (offset, (key, value)) in keys.enumerated() {
            segments += [
                .sql(offset == 0 ? " WHERE " : " AND "), .foreignIdentifier(alias), .sql("."),
                .foreignIdentifier(key), .sql(" = "),
            ]
            segments += value.fragment.segments
        }
        segments.append(.sql(")"))
        return SQLExpression(SQLFragment(segments), precedence: .atom)
    }

    /// True for the rows whose `values` are the `keys` of a row of `table` that passes
    /// `predicate`: `value IN (SELECT "alias"."key" FROM "table" AS "alias" WHERE predicate)`, or
    /// `(value, …) IN (SELECT "alias"."key", … …)` for several.
    ///
    /// The same rows as a ``lookup(_:in:as:keys:)`` tested with `predicate` wherever the test
    /// fails on null (so not under a NOT, nor with `IS NULL`), and a shape SQLite can plan from
    /// either side: through an index on `values` (a foreign key's), or through `table`'s.
    ///
    /// ```swift
    /// // "responses"."hero_id" IN (SELECT "h"."id" FROM "heroes" AS "h" WHERE "h"."name" = ?)
    /// SQLExpression.membership(
    ///     of: [.column("hero_id", of: "responses")], inKeys: ["id"], of: "heroes", as: "h",
    ///     where: SQLExpression.column("name", of: "h") == "lina")
    /// ```
    public static func membership(
        of values: [SQLExpression], inKeys keys: [String], of table: String, as alias: String,
        where predicate: SQLExpression
    ) -> SQLExpression {
        var segments: [SQLFragment.Segment] = []
        if values.count > 1 { segments.append(.sql("(")) }
        for (offset, value) in values.enumerated() {
            if offset > 0 { segments.append(.sql(", ")) }
            segments += value.fragment.segments
        }
        if values.count > 1 { segments.append(.sql(")")) }
        segments.append(.sql(" IN (SELECT "))
        for (offset, key) in keys.enumerated() {
            if offset > 0 { segments.append(.sql(", ")) }
            segments += [.foreignIdentifier(alias), .sql("."), .foreignIdentifier(key)]
        }
        segments += [
            .sql(" FROM "), .foreignIdentifier(table), .sql(" AS "), .foreignIdentifier(alias), .sql(" WHERE "),
        ]
        segments += predicate.fragment.segments
        segments.append(.sql(")"))
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// A column qualified by its table's name or alias: `"table"."column"`, for a subquery that
    /// refers to the outer query's row.
    public static func column(_ name: String, of table: String) -> SQLExpression {
        SQLExpression(
            SQLFragment([.foreignIdentifier(table), .sql("."), .foreignIdentifier(name)]), precedence: .atom)
    }

    /// The expression named `name` in a selection: `expression AS "name"`, the column's name in
    /// the result. Only for a request's `select`; it is not
    /// an expression a filter can use.
    public func named(_ name: String) -> SQLExpression {
        SQLExpression(SQLFragment(fragment.segments + [.sql(" AS "), .foreignIdentifier(name)]), precedence: .atom)
    }
}
