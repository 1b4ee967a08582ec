import BenchSQLite

/// Raw sqlite3 calls from Swift, statements prepared once: what the C baseline does.
struct RawContender: Contender {
    let name = "raw sqlite3"
    private var db: OpaquePointer?
    private var recordsDB: OpaquePointer?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    struct Item {
        var id: Int64
        var title: String
        var done: Bool
        var priority: Int
        var createdAt: Double
    }
    struct Ints { var v: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) }

    private func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
            throw BenchmarkError("\(what): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(db, sql, -1, &statement, nil), sql)
        return statement
    }

    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws {
        if db != nil { sqlite3_close(db) }
        if recordsDB != nil { sqlite3_close(recordsDB) }
        recordsDB = try Self.openRecordsDatabase()
        try check(sqlite3_open(":memory:", &db), "open")
        try check(sqlite3_exec(db, Shape.schema, nil, nil, nil), "schema")
        let db = self.db
        try timeInsert {
            try check(sqlite3_exec(db, "BEGIN", nil, nil, nil), "begin")
            let insert = try prepare(Shape.insertItem)
            for i in 0..<rows {
                _ = Shape.title(i).withCString { sqlite3_bind_text(insert, 1, $0, -1, Self.transient) }
                sqlite3_bind_int(insert, 2, Shape.done(i) ? 1 : 0)
                sqlite3_bind_int(insert, 3, Int32(Shape.priority(i)))
                sqlite3_bind_double(insert, 4, Shape.createdAt(i))
                try check(sqlite3_step(insert), "insert")
                sqlite3_reset(insert)
            }
            sqlite3_finalize(insert)
            try check(sqlite3_exec(db, "COMMIT", nil, nil, nil), "commit")
        }
        try check(sqlite3_exec(db, "BEGIN", nil, nil, nil), "begin")
        let ints = try prepare(Shape.insertInts)
        for i in 0..<Shape.intRows {
            for c in 0..<10 { sqlite3_bind_int64(ints, Int32(c + 1), Int64(i + c)) }
            try check(sqlite3_step(ints), "ints")
            sqlite3_reset(ints)
        }
        sqlite3_finalize(ints)
        try check(sqlite3_exec(db, "COMMIT", nil, nil, nil), "commit")
    }

    private func item(_ statement: OpaquePointer?) -> Item {
        Item(
            id: sqlite3_column_int64(statement, 0),
            title: String(cString: sqlite3_column_text(statement, 1)),
            done: sqlite3_column_int(statement, 2) != 0,
            priority: Int(sqlite3_column_int(statement, 3)),
            createdAt: sqlite3_column_double(statement, 4))
    }

    func run(_ workload: Workload, rows: Int) throws -> Int? {
        switch workload {
        case .insert:
            return nil  // measured in setUp
        case .insertRecords:
            return try Self.insertRecords(rows: rows, into: recordsDB)
        case .fetchAll:
            let statement = try prepare(Shape.selectItems)
            defer { sqlite3_finalize(statement) }
            var items: [Item] = []
            while sqlite3_step(statement) == SQLITE_ROW { items.append(item(statement)) }
            return items.count
        case .fetchInts:
            let statement = try prepare(Shape.selectInts)
            defer { sqlite3_finalize(statement) }
            var all: [Ints] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                let s = statement
                all.append(
                    Ints(
                        v: (
                            sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
                            sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4), sqlite3_column_int64(s, 5),
                            sqlite3_column_int64(s, 6), sqlite3_column_int64(s, 7), sqlite3_column_int64(s, 8),
                            sqlite3_column_int64(s, 9)
                        )))
            }
            return all.count
        case .filtered:
            let statement = try prepare(Shape.filtered)
            defer { sqlite3_finalize(statement) }
            var sum = 0
            for _ in 0..<Shape.filteredRuns {
                sqlite3_bind_int(statement, 1, 0)
                sqlite3_bind_int(statement, 2, 2)
                sqlite3_bind_int(statement, 3, 50)
                var items: [Item] = []
                while sqlite3_step(statement) == SQLITE_ROW { items.append(item(statement)) }
                sqlite3_reset(statement)
                sum += items.reduce(0) { $0 + Int($1.id) }
            }
            return sum
        case .pointLookup:
            let statement = try prepare(Shape.pointLookup)
            defer { sqlite3_finalize(statement) }
            var sum = 0
            for run in 0..<Shape.lookups {
                sqlite3_bind_int64(statement, 1, Shape.lookupID(run, rows: rows))
                while sqlite3_step(statement) == SQLITE_ROW { sum += item(statement).priority }
                sqlite3_reset(statement)
            }
            return sum
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
