import BenchSQLite

/// Raw sqlite3 calls: the search's SQL prepared once, bound and stepped, each row into a struct.
struct RawSearchContender: SearchContender {
    struct Note {
        var id: Int64
        var title: String
        var body: String
    }

    let name = "raw sqlite3"
    private let db: OpaquePointer?
    private let statements: [String: OpaquePointer?]
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        var db: OpaquePointer?
        // No mutexes, as this package and GRDB open their connections: one thread uses each.
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw BenchmarkError("open \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        self.db = db
        var statements: [String: OpaquePointer?] = [:]
        for query in try SearchQuery.all() where statements[query.sql] == nil {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(db, query.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
            else { throw BenchmarkError("\(query.sql): \(String(cString: sqlite3_errmsg(db)))") }
            statements[query.sql] = statement
        }
        self.statements = statements
    }

    func run(_ query: SearchQuery) throws -> (milliseconds: Double, digest: SearchDigest) {
        guard let statement = statements[query.sql] else { throw BenchmarkError("no statement for \(query.sql)") }
        var notes: [Note] = []
        var code: Int32 = SQLITE_DONE
        let time = milliseconds {
            _ = query.rawPattern.withCString { sqlite3_bind_text(statement, 1, $0, -1, Self.transient) }
            if let limit = query.limit { sqlite3_bind_int64(statement, 2, Int64(limit)) }
            code = sqlite3_step(statement)
            while code == SQLITE_ROW {
                notes.append(
                    Note(
                        id: sqlite3_column_int64(statement, 0),
                        title: String(cString: sqlite3_column_text(statement, 1)),
                        body: String(cString: sqlite3_column_text(statement, 2))))
                code = sqlite3_step(statement)
            }
            sqlite3_reset(statement)
        }
        guard code == SQLITE_DONE else { throw BenchmarkError("\(query.sql): \(String(cString: sqlite3_errmsg(db)))") }
        var digest = SearchDigest()
        for note in notes { digest.add(id: note.id, title: note.title, body: note.body) }
        return (time, digest)
    }
}
