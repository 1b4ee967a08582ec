import GRDB

/// GRDB 7's record API: `insert` of `MutablePersistableRecord`s with a hand-written
/// `encode(to:)`, or `Encodable`.
struct GRDBRecordContender: Contender {
    enum Encoding { case handWritten, encodable }

    struct Record: MutablePersistableRecord {
        static let databaseTableName = "records"
        var id: Int64?
        var title: String
        var done: Bool
        var priority: Int
        var createdAt: Double

        func encode(to container: inout PersistenceContainer) {
            container["id"] = id
            container["title"] = title
            container["done"] = done
            container["priority"] = priority
            container["created_at"] = createdAt
        }

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    struct CodableRecord: MutablePersistableRecord, Encodable {
        static let databaseTableName = "records"
        var id: Int64?
        var title: String
        var done: Bool
        var priority: Int
        var created_at: Double
        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    let encoding: Encoding
    var name: String { encoding == .handWritten ? "GRDB PersistableRecord" : "GRDB Encodable record" }
    private var queue: DatabaseQueue?

    init(_ encoding: Encoding) { self.encoding = encoding }

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in try db.execute(sql: Shape.recordsSchema) }
        self.queue = queue
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard workload == .insertRecords else { return nil }
        guard let queue else { throw BenchmarkError("not set up") }
        var sum = 0
        try queue.inTransaction { db in
            switch encoding {
            case .handWritten:
                for i in 0..<rows {
                    var record = Record(
                        id: nil, title: Shape.title(i), done: Shape.done(i), priority: Shape.priority(i),
                        createdAt: Shape.createdAt(i))
                    try record.insert(db)
                    sum += Int(record.id!)
                }
            case .encodable:
                for i in 0..<rows {
                    var record = CodableRecord(
                        id: nil, title: Shape.title(i), done: Shape.done(i), priority: Shape.priority(i),
                        created_at: Shape.createdAt(i))
                    try record.insert(db)
                    sum += Int(record.id!)
                }
            }
            return .commit
        }
        return sum
    }
}
