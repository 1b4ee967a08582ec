import Synchronization

/// What the writes of one record type need, worked out on its first write: its table, key and
/// layouts. Kept for the life of the process, one per type.
@usableFromInline
final class RecordPlan: Sendable {
    let typeName: String
    let table: String
    let primaryKey: PrimaryKey
    /// The layout of a type that declares its columns; nil when coding keys name them.
    @usableFromInline let declared: RecordLayout?
    private let learned = Mutex<Learned>(Learned())

    private struct Learned {
        /// The layout of the last record whose coding keys differed from it, or of the first.
        var main: RecordLayout?
        var byColumns: [[String]: RecordLayout] = [:]
    }

    private static let plans = Mutex<[ObjectIdentifier: RecordPlan]>([:])

    private init<Record: PersistableRecord>(_ type: Record.Type) throws {
        typeName = "\(Record.self)"
        table = Record.tableName
        primaryKey = Record.primaryKey
        let columns = Record.databaseColumns
        declared = columns.isEmpty
            ? nil
            : try RecordLayout(typeName: typeName, table: table, columns: columns, primaryKey: primaryKey)
    }

    /// The plan of `type`, made on first use.
    @usableFromInline
    static func of<Record: PersistableRecord>(_ type: Record.Type) throws -> RecordPlan {
        let id = ObjectIdentifier(type)
        if let plan = plans.withLock({ $0[id] }) { return plan }
        let plan = try RecordPlan(type)
        return plans.withLock { plans in
            if let existing = plans[id] { return existing }
            plans[id] = plan
            return plan
        }
    }

    /// The columns an `Encodable` record of this type is expected to write.
    var expectedColumns: [String] {
        learned.withLock { $0.main?.columns ?? [] }
    }

    /// The layout for the columns an `Encodable` record wrote.
    func layout(learnedFrom encoder: ColumnEncoder) throws -> RecordLayout {
        try encoder.finish(type: typeName, sql: nil)
        let columns = encoder.learnedColumns ?? encoder.columns
        return try learned.withLock { learned in
            if let main = learned.main, main.columns == columns { return main }
            if let layout = learned.byColumns[columns] {
                learned.main = layout
                return layout
            }
            let layout = try RecordLayout(typeName: typeName, table: table, columns: columns, primaryKey: primaryKey)
            learned.byColumns[columns] = layout
            learned.main = layout
            return layout
        }
    }
}
