import GRDB

/// GRDB 7, with its fastest record decoding (`init(row:)` by index) or `Codable`.
struct GRDBContender: Contender {
    enum Decoding { case record, codable }

    struct Item: FetchableRecord {
        var id: Int64, title: String, done: Bool, priority: Int, createdAt: Double
        init(row: Row) throws {
            id = row[0]
            title = row[1]
            done = row[2]
            priority = row[3]
            createdAt = row[4]
        }
    }

    struct CodableItem: FetchableRecord, Decodable {
        var id: Int64, title: String, done: Bool, priority: Int, created_at: Double
    }

    struct Ints: FetchableRecord {
        var v: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
        init(row: Row) throws {
            v = (row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9])
        }
    }

    struct CodableInts: FetchableRecord, Decodable {
        var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
    }

    let decoding: Decoding
    var name: String { decoding == .record ? "GRDB FetchableRecord" : "GRDB Codable" }
    private var queue: DatabaseQueue?

    init(_ decoding: Decoding) { self.decoding = decoding }

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        queue = try Self.makeQueue(rows: rows) { insert in
            if decoding == .record { try timeInsert(insert) } else { try insert() }
        }
    }

    /// A database with the schema and the rows of every workload, filled through GRDB's cached
    /// statements; `insertItems` runs (and may time) the insertion of the items.
    static func makeQueue(rows: Int, insertItems: (@escaping () throws -> Void) throws -> Void) throws -> DatabaseQueue
    {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in try db.execute(sql: Shape.schema) }
        try insertItems {
            try queue.inTransaction { db in
                let statement = try db.cachedStatement(sql: Shape.insertItem)
                for i in 0..<rows {
                    try statement.execute(arguments: [
                        Shape.title(i), Shape.done(i), Shape.priority(i), Shape.createdAt(i),
                    ])
                }
                return .commit
            }
        }
        try queue.inTransaction { db in
            let statement = try db.cachedStatement(sql: Shape.insertInts)
            for i in 0..<Shape.intRows {
                try statement.execute(arguments: StatementArguments((0..<10).map { Int64(i + $0) }))
            }
            return .commit
        }
        return queue
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard let queue else { throw BenchmarkError("not set up") }
        return try queue.inDatabase { db -> Int? in
            switch (workload, decoding) {
            case (.insert, _), (.insertRecords, _):
                return nil
            case (.fetchAll, .record):
                return try Item.fetchAll(db, sql: Shape.selectItems).count
            case (.fetchAll, .codable):
                return try CodableItem.fetchAll(db, sql: Shape.selectItems).count
            case (.fetchInts, .record):
                return try Ints.fetchAll(db, sql: Shape.selectInts).count
            case (.fetchInts, .codable):
                return try CodableInts.fetchAll(db, sql: Shape.selectInts).count
            case (.filtered, .record):
                let statement = try db.cachedStatement(sql: Shape.filtered)
                var sum = 0
                for _ in 0..<Shape.filteredRuns {
                    sum += try Item.fetchAll(statement, arguments: [0, 2, 50]).reduce(0) { $0 + Int($1.id) }
                }
                return sum
            case (.filtered, .codable):
                let statement = try db.cachedStatement(sql: Shape.filtered)
                var sum = 0
                for _ in 0..<Shape.filteredRuns {
                    sum += try CodableItem.fetchAll(statement, arguments: [0, 2, 50]).reduce(0) { $0 + Int($1.id) }
                }
                return sum
            case (.pointLookup, .record):
                let statement = try db.cachedStatement(sql: Shape.pointLookup)
                var sum = 0
                for run in 0..<Shape.lookups {
                    sum += try Item.fetchOne(statement, arguments: [Shape.lookupID(run, rows: rows)])?.priority ?? 0
                }
                return sum
            case (.pointLookup, .codable):
                let statement = try db.cachedStatement(sql: Shape.pointLookup)
                var sum = 0
                for run in 0..<Shape.lookups {
                    sum +=
                        try CodableItem.fetchOne(statement, arguments: [Shape.lookupID(run, rows: rows)])?.priority ?? 0
                }
                return sum
            }
        }
    }
}
