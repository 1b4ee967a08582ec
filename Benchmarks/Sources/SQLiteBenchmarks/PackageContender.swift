import SQLite

/// This package, decoding by hand (`FetchableRow`) or through `Decodable`.
struct PackageContender: Contender {
    enum Decoding { case fetchableRow, decodable }

    struct Item: FetchableRow {
        var id: Int64, title: String, done: Bool, priority: Int, createdAt: Double
        init(row: BorrowedRow) throws {
            id = try row[0]
            title = try row[1]
            done = try row[2]
            priority = try row[3]
            createdAt = try row[4]
        }
    }

    struct CodableItem: FetchableRow, Decodable {
        var id: Int64, title: String, done: Bool, priority: Int, created_at: Double
    }

    struct Ints: FetchableRow {
        var v: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
        init(row: BorrowedRow) throws {
            v = (
                try row[0], try row[1], try row[2], try row[3], try row[4],
                try row[5], try row[6], try row[7], try row[8], try row[9]
            )
        }
    }

    struct CodableInts: FetchableRow, Decodable {
        var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
    }

    let decoding: Decoding
    var name: String { decoding == .fetchableRow ? "SQLite FetchableRow" : "SQLite Decodable" }
    private var db: Database?

    init(_ decoding: Decoding) { self.decoding = decoding }

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        // Inserting does not depend on the decoding, so only one of the two variants times it.
        db = try Self.makeDatabase(rows: rows) { insert in
            if decoding == .fetchableRow { try timeInsert(insert) } else { try insert() }
        }
    }

    /// A database with the schema and the rows of every workload, filled through this package;
    /// `insertItems` runs (and may time) the insertion of the items.
    static func makeDatabase(rows: Int, insertItems: (@escaping () throws -> Void) throws -> Void) throws -> Database {
        let db = try Database()
        try db.executeScript(Shape.schema)
        try insertItems {
            try db.transaction { db in
                for i in 0..<rows {
                    try db.execute(
                        Shape.insertItem,
                        [
                            .text(Shape.title(i)), .integer(Shape.done(i) ? 1 : 0),
                            .integer(Int64(Shape.priority(i))), .real(Shape.createdAt(i)),
                        ])
                }
            }
        }
        try db.transaction { db in
            for i in 0..<Shape.intRows {
                try db.execute(Shape.insertInts, (0..<10).map { .integer(Int64(i + $0)) })
            }
        }
        return db
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        guard let db else { throw BenchmarkError("not set up") }
        switch (workload, decoding) {
        case (.insert, _), (.insertRecords, _):
            return nil
        case (.fetchAll, .fetchableRow):
            return try db.fetchAll(Item.self, Shape.selectItems).count
        case (.fetchAll, .decodable):
            return try db.fetchAll(CodableItem.self, "SELECT id, title, done, priority, created_at FROM items").count
        case (.fetchInts, .fetchableRow):
            return try db.fetchAll(Ints.self, Shape.selectInts).count
        case (.fetchInts, .decodable):
            return try db.fetchAll(CodableInts.self, Shape.selectInts).count
        case (.filtered, .fetchableRow):
            var sum = 0
            for _ in 0..<Shape.filteredRuns {
                sum += try db.fetchAll(Item.self, Shape.filtered, [0, 2, 50]).reduce(0) { $0 + Int($1.id) }
            }
            return sum
        case (.filtered, .decodable):
            var sum = 0
            for _ in 0..<Shape.filteredRuns {
                sum += try db.fetchAll(CodableItem.self, Shape.filtered, [0, 2, 50]).reduce(0) { $0 + Int($1.id) }
            }
            return sum
        case (.pointLookup, .fetchableRow):
            var sum = 0
            for run in 0..<Shape.lookups {
                sum +=
                    try db.fetchOne(Item.self, Shape.pointLookup, [.integer(Shape.lookupID(run, rows: rows))])?.priority
                    ?? 0
            }
            return sum
        case (.pointLookup, .decodable):
            var sum = 0
            for run in 0..<Shape.lookups {
                sum +=
                    try db.fetchOne(CodableItem.self, Shape.pointLookup, [.integer(Shape.lookupID(run, rows: rows))])?
                    .priority ?? 0
            }
            return sum
        }
    }
}
