import QueryBuilder
import SQLCore

/// A record write rendered for a source other than SQLite, with its arguments in order.
package struct RenderedRecordWrite: Sendable {
    package let sql: String
    package let arguments: [DatabaseValue]
    /// The table's name, and the key's columns and values, for a "not found" error.
    package let table: String
    package let keyColumns: [String]
    package let keyValues: [DatabaseValue]
    /// Set when the insert left a NULL rowid key to the database, which assigns it: the rendered
    /// SQL returns the key's column first, for `didInsert(rowID:)`.
    package let assignsRowID: Bool
}

/// The record writes another source runs.
package enum RecordWriteKind: Sendable {
    case insert, upsert, update, delete
}

extension PersistableRecord {
    /// The SQL and arguments of a write of this record in `dialect`, built from the same layout as
    /// SQLite's: the same table, columns and key, with `$n` placeholders for PostgreSQL.
    ///
    /// SQLite gives a NULL `INTEGER PRIMARY KEY` the next rowid; PostgreSQL would store the NULL
    /// (and refuse it). So an insert whose rowid key is NULL leaves the column out, letting the
    /// column's default (an identity or a sequence) assign it, and returns it.
    ///
    /// With `returningAll`, the statement returns every column of the written row.
    package func renderedWrite(
        _ kind: RecordWriteKind, dialect: SQLDialect, returningAll: Bool = false
    ) throws -> RenderedRecordWrite {
        var (layout, values) = try encodedValues()
        var assignsRowID = false
        if kind == .insert, layout.hasRowIDKey, let key = layout.keyPositions.first, values[key] == .null {
            var columns = layout.columns
            columns.remove(at: key)
            values.remove(at: key)
            layout = try RecordLayout(
                typeName: layout.typeName, table: layout.table, columns: columns, primaryKey: layout.primaryKey)
            assignsRowID = true
        }
        let keyColumns = layout.primaryKey.columns
        var returning: [String] = []
        if assignsRowID { returning.append(String.quotedIdentifier(keyColumns[0])) }
        if returningAll { returning.append("*") }
        let shapeKind: WriteShape.Kind =
            switch kind {
            case .insert: .insert
            case .upsert: .upsert
            case .update: .update
            case .delete: .delete
            }
        let shape = WriteShape(kind: shapeKind, returning: returning.isEmpty ? nil : returning.joined(separator: ", "))
        let write = try layout.sql(for: shape)
        let arguments: [DatabaseValue]
        switch kind {
        case .insert, .upsert: arguments = values
        case .update: arguments = write.setPositions.map { values[$0] } + write.keyPositions.map { values[$0] }
        case .delete: arguments = write.keyPositions.map { values[$0] }
        }
        return RenderedRecordWrite(
            sql: dialect == .sqlite ? write.sql : Self.numberingPlaceholders(write.sql), arguments: arguments,
            table: layout.table, keyColumns: keyColumns,
            keyValues: layout.keyPositions.isEmpty ? [] : layout.keyValues(values), assignsRowID: assignsRowID)
    }

    /// `sql` with each `?` placeholder numbered, `$1, $2…`. A write's SQL holds placeholders,
    /// double-quoted identifiers (which may contain `?`), and no string literal.
    private static func numberingPlaceholders(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var inIdentifier = false
        for character in sql {
            if character == "\"" { inIdentifier.toggle() }
            if character == "?" && !inIdentifier {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
