import Locking
import QueryBuilder
import SQLCore

/// One kind of record write: what the SQL of a ``RecordLayout`` is rendered for.
package struct WriteShape: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        case insert, upsert, update, delete
    }

    package var kind: Kind
    /// For updates: the positions of the columns to set; nil sets every column but the key.
    package var updated: [Int]?
    /// The rendered expressions of a `RETURNING` clause.
    package var returning: String?

    package init(kind: Kind, updated: [Int]? = nil, returning: String? = nil) {
        self.kind = kind
        self.updated = updated
        self.returning = returning
    }

    package static let insert = WriteShape(kind: .insert)
    package static let upsert = WriteShape(kind: .upsert)
    package static let update = WriteShape(kind: .update)
    package static let delete = WriteShape(kind: .delete)
}

/// The SQL of one write shape, rendered once, and how its parameters match the record's columns.
@usableFromInline
package final class WriteSQL: Sendable {
    @usableFromInline package let sql: String
    /// Column position → parameter index (1-based), 0 when unused; empty when column `i` binds
    /// parameter `i + 1`.
    @usableFromInline package let parameters: [Int32]
    /// For updates: the positions of the columns set, in the order of their parameters.
    package let setPositions: [Int]
    /// For updates and deletes: the key's positions, bound after the set columns.
    package let keyPositions: [Int]
    /// How many parameters the record's values bind; a `RETURNING` clause's own values follow.
    package let recordParameterCount: Int

    package init(
        _ renderer: SQLRenderer, parameters: [Int32], setPositions: [Int] = [], keyPositions: [Int] = [],
        recordParameterCount: Int
    ) {
        sql = renderer.sql
        self.parameters = parameters
        self.setPositions = setPositions
        self.keyPositions = keyPositions
        self.recordParameterCount = recordParameterCount
    }
}

/// A record type's table, columns and key, with the SQL of each write shape rendered once.
///
/// A type with declared columns has one layout. An `Encodable` type has one per set of coding
/// keys its records write, usually one.
@usableFromInline
package final class RecordLayout: Sendable {
    package let typeName: String
    @usableFromInline package let table: String
    package let columns: [String]
    @usableFromInline package let columnCount: Int
    package let primaryKey: PrimaryKey
    /// The positions of the key's columns; empty when the record does not encode its whole key.
    package let keyPositions: [Int]
    /// True when the record's row is found by a key that is a rowid alias, whose value an
    /// insert hands to `didInsert(rowID:)`.
    @usableFromInline package let hasRowIDKey: Bool
    /// The plain insert, rendered up front: the write that runs most often.
    @usableFromInline package let insert: WriteSQL
    private let shapes = Lock<[WriteShape: WriteSQL]>([:])

    package init(typeName: String, table: String, columns: [String], primaryKey: PrimaryKey) throws {
        guard !columns.isEmpty else { throw PersistenceError.noColumns(type: typeName) }
        var seen: Set<String> = []
        for column in columns where !seen.insert(column.sqliteFolded).inserted {
            throw PersistenceError.duplicateColumn(type: typeName, column: column)
        }
        self.typeName = typeName
        self.table = table
        self.columns = columns
        columnCount = columns.count
        self.primaryKey = primaryKey
        let keyPositions = primaryKey.columns.map { Self.position(of: $0, in: columns) }
        self.keyPositions = keyPositions.contains(nil) ? [] : keyPositions.map { $0! }
        hasRowIDKey = primaryKey.isRowID && !self.keyPositions.isEmpty
        insert = Self.renderInsert(table: table, columns: columns)
    }

    /// The position of a column, matched exactly first and then ignoring the case of ASCII
    /// letters, as SQLite matches names.
    package static func position(of column: String, in columns: [String]) -> Int? {
        columns.firstIndex { $0.hasSameBytes(as: column) } ?? columns.firstIndex { $0.sqliteNameMatches(column) }
    }

    /// The key's values in `values`, one per key column.
    package func keyValues(_ values: [DatabaseValue]) -> [DatabaseValue] {
        keyPositions.map { values[$0] }
    }

    /// The SQL of `shape`, rendered on first use.
    package func sql(for shape: WriteShape) throws -> WriteSQL {
        if shape == .insert { return insert }
        if let cached = shapes.withLock({ $0[shape] }) { return cached }
        let rendered = try render(shape)
        // The first one stored wins, so every WriteSQL handed out stays cached (and alive).
        return shapes.withLock { shapes in
            if let existing = shapes[shape] { return existing }
            shapes[shape] = rendered
            return rendered
        }
    }

    // MARK: Rendering

    private static func renderInsert(table: String, columns: [String], returning: String? = nil) -> WriteSQL {
        let renderer = SQLRenderer()
        renderInsertPrefix(into: renderer, table: table, columns: columns)
        renderReturning(into: renderer, returning)
        return WriteSQL(renderer, parameters: [], recordParameterCount: columns.count)
    }

    private static func renderInsertPrefix(into renderer: SQLRenderer, table: String, columns: [String]) {
        renderer.append("INSERT INTO ")
        renderer.appendIdentifier(table)
        renderer.append(" (")
        appendList(columns, into: renderer)
        renderer.append(") VALUES (")
        for index in columns.indices { renderer.append(index == 0 ? "?" : ", ?") }
        renderer.append(")")
    }

    private static func renderReturning(into renderer: SQLRenderer, _ returning: String?) {
        guard let returning else { return }
        renderer.append(" RETURNING ")
        renderer.append(text: returning)
    }

    private static func appendList(_ names: [String], into renderer: SQLRenderer) {
        for (index, name) in names.enumerated() {
            if index > 0 { renderer.append(", ") }
            renderer.appendIdentifier(name)
        }
    }

    private func requireKey() throws {
        if keyPositions.isEmpty {
            throw PersistenceError.primaryKeyNotEncoded(
                type: typeName, table: table, key: primaryKey.columns, columns: columns)
        }
    }

    private var nonKeyPositions: [Int] { columns.indices.filter { !keyPositions.contains($0) } }

    private func render(_ shape: WriteShape) throws -> WriteSQL {
        let renderer = SQLRenderer()
        switch shape.kind {
        case .insert:
            return Self.renderInsert(table: table, columns: columns, returning: shape.returning)

        case .upsert:
            try requireKey()
            Self.renderInsertPrefix(into: renderer, table: table, columns: columns)
            renderer.append(" ON CONFLICT (")
            Self.appendList(keyPositions.map { columns[$0] }, into: renderer)
            renderer.append(") DO UPDATE SET ")
            let updated = nonKeyPositions
            if updated.isEmpty {
                // Only key columns: still an update, so the statement reports the row it found.
                appendSelfAssignment(into: renderer)
            } else {
                for (index, position) in updated.enumerated() {
                    if index > 0 { renderer.append(", ") }
                    renderer.appendIdentifier(columns[position])
                    renderer.append(" = excluded.")
                    renderer.appendIdentifier(columns[position])
                }
            }
            Self.renderReturning(into: renderer, shape.returning)
            return WriteSQL(renderer, parameters: [], recordParameterCount: columns.count)

        case .update:
            try requireKey()
            let set = shape.updated ?? nonKeyPositions
            renderer.append("UPDATE ")
            renderer.appendIdentifier(table)
            renderer.append(" SET ")
            if set.isEmpty {
                appendSelfAssignment(into: renderer)
            } else {
                for (index, position) in set.enumerated() {
                    if index > 0 { renderer.append(", ") }
                    renderer.appendIdentifier(columns[position])
                    renderer.append(" = ?")
                }
            }
            appendKeyCondition(into: renderer)
            Self.renderReturning(into: renderer, shape.returning)
            var parameters = [Int32](repeating: 0, count: columns.count)
            for (index, position) in keyPositions.enumerated() { parameters[position] = Int32(set.count + index + 1) }
            // A key column that is also set binds its new value to SET; updateChanges binds the
            // old key to WHERE itself.
            for (index, position) in set.enumerated() { parameters[position] = Int32(index + 1) }
            return WriteSQL(
                renderer, parameters: parameters, setPositions: set, keyPositions: keyPositions,
                recordParameterCount: set.count + keyPositions.count)

        case .delete:
            try requireKey()
            renderer.append("DELETE FROM ")
            renderer.appendIdentifier(table)
            appendKeyCondition(into: renderer)
            Self.renderReturning(into: renderer, shape.returning)
            var parameters = [Int32](repeating: 0, count: columns.count)
            for (index, position) in keyPositions.enumerated() { parameters[position] = Int32(index + 1) }
            return WriteSQL(
                renderer, parameters: parameters, keyPositions: keyPositions, recordParameterCount: keyPositions.count)
        }
    }

    /// `"id" = "id"`: an assignment that changes nothing, for records made only of key columns.
    private func appendSelfAssignment(into renderer: SQLRenderer) {
        let key = columns[keyPositions[0]]
        renderer.appendIdentifier(key)
        renderer.append(" = ")
        renderer.appendIdentifier(key)
    }

    private func appendKeyCondition(into renderer: SQLRenderer) {
        renderer.append(" WHERE ")
        for (index, position) in keyPositions.enumerated() {
            if index > 0 { renderer.append(" AND ") }
            renderer.appendIdentifier(columns[position])
            renderer.append(" = ?")
        }
    }
}
