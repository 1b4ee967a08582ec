import Locking
import QueryBuilder
import SQLCore
import Synchronization

/// What the writes of one record type need, worked out on its first write: its table, key and
/// layouts. Kept for the life of the process, one per type.
@usableFromInline
package final class RecordPlan: Sendable {
    package let typeName: String
    package let table: String
    package let primaryKey: PrimaryKey
    /// The layout of a type that declares its columns; nil when coding keys name them.
    @usableFromInline package let declared: RecordLayout?
    private let learned = Lock<Learned>(Learned())

    private struct Learned {
        /// The layout of the last record whose coding keys differed from it, or of the first.
        var main: RecordLayout?
        var byColumns: [[String]: RecordLayout] = [:]
    }

    let typeID: ObjectIdentifier

    /// Every plan made, kept for the life of the process: plans and their layouts are never
    /// freed, which is what lets the fast paths hold them without reference counting.
    private static let plans = Lock<[ObjectIdentifier: RecordPlan]>([:])
    /// The plan looked up last, as the bits of an unretained reference, so that a loop writing
    /// records of one type finds its plan with one atomic load instead of a lock and a hash.
    private static let lastPlan = Atomic<UInt>(0)

    private init<Record: PersistableRecord>(_ type: Record.Type) throws {
        typeID = ObjectIdentifier(type)
        typeName = "\(Record.self)"
        table = Record.tableName
        primaryKey = Record.primaryKey
        let columns = Record.databaseColumns
        declared =
            columns.isEmpty
            ? nil
            : try RecordLayout(typeName: typeName, table: table, columns: columns, primaryKey: primaryKey)
    }

    /// The plan of `type`, made on first use.
    @usableFromInline
    package static func of<Record: PersistableRecord>(_ type: Record.Type) throws -> RecordPlan {
        let id = ObjectIdentifier(type)
        if let last = UnsafeRawPointer(bitPattern: lastPlan.load(ordering: .acquiring)) {
            // Safe without a retain: `plans` keeps every plan alive forever.
            let plan = Unmanaged<RecordPlan>.fromOpaque(last).takeUnretainedValue()
            if plan.typeID == id { return plan }
        }
        let plan = try plans.withLock({ $0[id] }) ?? register(RecordPlan(type))
        lastPlan.store(UInt(bitPattern: Unmanaged.passUnretained(plan).toOpaque()), ordering: .releasing)
        return plan
    }

    private static func register(_ plan: RecordPlan) -> RecordPlan {
        plans.withLock { plans in
            if let existing = plans[plan.typeID] { return existing }
            plans[plan.typeID] = plan
            return plan
        }
    }

    /// The columns an `Encodable` record of this type is expected to write.
    package var expectedColumns: [String] {
        learned.withLock { $0.main?.columns ?? [] }
    }

    /// The layout for the columns an `Encodable` record wrote.
    func layout(learnedFrom collector: ValueCollector) throws -> RecordLayout {
        try collector.finish(type: typeName)
        let columns = collector.learnedColumns ?? collector.columns
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
