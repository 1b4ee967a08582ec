import GRDB

/// GRDB 7's query interface, building each request from scratch like ``QueryBuilderContender``.
struct GRDBQueryInterfaceContender: Contender {
    struct Item: FetchableRecord, TableRecord {
        static let databaseTableName = "items"
        var id: Int64, title: String, done: Bool, priority: Int, createdAt: Double
        init(row: Row) throws {
            id = row[0]
            title = row[1]
            done = row[2]
            priority = row[3]
            createdAt = row[4]
        }
    }

    let name = "GRDB query interface"
    private var queue: DatabaseQueue?

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        // Inserting is not what this contender measures, so it is left untimed.
        queue = try GRDBContender.makeQueue(rows: rows) { try $0() }
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard let queue else { throw BenchmarkError("not set up") }
        return try queue.inDatabase { db -> Int? in
            switch workload {
            case .insert, .insertRecords, .fetchAll, .fetchInts:
                return nil
            case .filtered:
                var sum = 0
                for _ in 0..<Shape.filteredRuns {
                    let items = try Item.all()
                        .filter(Column("done") == false && Column("priority") >= 2)
                        .order(Column("created_at").desc)
                        .limit(50)
                        .fetchAll(db)
                    sum += items.reduce(0) { $0 + Int($1.id) }
                }
                return sum
            case .pointLookup:
                var sum = 0
                for run in 0..<Shape.lookups {
                    let id = Shape.lookupID(run, rows: rows)
                    sum += try Item.all().filter(Column("id") == id).fetchOne(db)?.priority ?? 0
                }
                return sum
            }
        }
    }
}
