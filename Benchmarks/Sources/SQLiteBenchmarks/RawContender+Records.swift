import BenchSQLite

extension RawContender {
    /// What a record is to the raw contender: a struct whose id is set after its insert.
    struct Record {
        var id: Int64?
        var title: String
        var done: Bool
        var priority: Int
        var createdAt: Double
    }

    /// A fresh in-memory database with the records table, for one round of `insert_records`.
    static func openRecordsDatabase() throws -> OpaquePointer? {
        var db: OpaquePointer?
        guard sqlite3_open(":memory:", &db) == SQLITE_OK,
            sqlite3_exec(db, Shape.recordsSchema, nil, nil, nil) == SQLITE_OK
        else {
            throw BenchmarkError("records database: \(String(cString: sqlite3_errmsg(db)))")
        }
        return db
    }

    /// Inserts `rows` records in one transaction with one prepared statement, setting each
    /// record's id from the last inserted rowid. Returns the sum of the ids.
    static func insertRecords(rows: Int, into db: OpaquePointer?) throws -> Int {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        func check(_ code: Int32, _ what: String) throws {
            guard code == SQLITE_OK || code == SQLITE_DONE else {
                throw BenchmarkError("\(what): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        try check(sqlite3_exec(db, "BEGIN", nil, nil, nil), "begin")
        var insert: OpaquePointer?
        try check(sqlite3_prepare_v2(db, Shape.insertRecord, -1, &insert, nil), "prepare")
        var sum = 0
        for i in 0..<rows {
            var record = Record(
                id: nil, title: Shape.title(i), done: Shape.done(i), priority: Shape.priority(i),
                createdAt: Shape.createdAt(i))
            _ = record.title.withCString { sqlite3_bind_text(insert, 1, $0, -1, transient) }
            sqlite3_bind_int(insert, 2, record.done ? 1 : 0)
            sqlite3_bind_int64(insert, 3, Int64(record.priority))
            sqlite3_bind_double(insert, 4, record.createdAt)
            try check(sqlite3_step(insert), "insert")
            sqlite3_reset(insert)
            record.id = sqlite3_last_insert_rowid(db)
            sum += Int(record.id!)
        }
        sqlite3_finalize(insert)
        try check(sqlite3_exec(db, "COMMIT", nil, nil, nil), "commit")
        return sum
    }
}
