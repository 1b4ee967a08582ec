import SQLite

/// This package's query builder: every iteration builds its request from scratch, as a user's
/// code would, renders it, and runs it through the connection's statement cache.
struct QueryBuilderContender: Contender {
    struct Item: TableRecord, FetchableRow {
        static let tableName = "items"
        var id: Int64, title: String, done: Bool, priority: Int, createdAt: Double
        init(row: BorrowedRow) throws {
            id = try row[0]
            title = try row[1]
            done = try row[2]
            priority = try row[3]
            createdAt = try row[4]
        }
    }

    let name = "SQLite query builder"
    private var db: Database?

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        // Inserting is not what this contender measures, so it is left untimed.
        db = try PackageContender.makeDatabase(rows: rows) { try $0() }
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard let db else { throw BenchmarkError("not set up") }
        switch workload {
        case .insert, .insertRecords, .fetchAll, .fetchInts:
            return nil
        case .filtered:
            var sum = 0
            for _ in 0..<Shape.filteredRuns {
                let items = try Item.all()
                    .filter(Column("done") == false && Column("priority") >= 2)
                    .sort(Column("created_at").desc)
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
