import SQLite

/// This package's record API: `insert` of `PersistableRecord`s, hand-written or `Encodable`.
struct RecordContender: Contender {
    enum Encoding { case handWritten, encodable }

    struct Record: PersistableRecord {
        static let tableName = "records"
        static let databaseColumns = ["id", "title", "done", "priority", "created_at"]
        var id: Int64?
        var title: String
        var done: Bool
        var priority: Int
        var createdAt: Double

        func encode(to columns: inout ColumnEncoder) {
            columns.encode(id)
            columns.encode(title)
            columns.encode(done)
            columns.encode(priority)
            columns.encode(createdAt)
        }

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    struct CodableRecord: PersistableRecord, Encodable {
        static let tableName = "records"
        var id: Int64?
        var title: String
        var done: Bool
        var priority: Int
        var created_at: Double
        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    let encoding: Encoding
    var name: String { encoding == .handWritten ? "SQLite record" : "SQLite Encodable record" }
    private var db: Database?

    init(_ encoding: Encoding) { self.encoding = encoding }

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        let db = try Database()
        try db.execute(Shape.recordsSchema)
        self.db = db
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard workload == .insertRecords else { return nil }
        guard let db else { throw BenchmarkError("not set up") }
        return try db.transaction { db in
            var sum = 0
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
            return sum
        }
    }
}
