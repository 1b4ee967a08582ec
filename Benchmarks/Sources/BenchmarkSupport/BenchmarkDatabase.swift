import BenchSQLite
import Foundation

/// The items database the command-line and `sqlq serve` benchmarks query: the demo schema of
/// Migrations/0001_create_lists_and_items.sql (with its index on (priority, due)), filled with
/// `rows` items by the demo seed's formulas. Built once, with raw sqlite3 calls, and kept.
package enum BenchmarkDatabase {
    package static func prepare(path: String, rows: Int, schemaFile: String) throws {
        if FileManager.default.fileExists(atPath: path), (try? count(path)) == rows { return }
        try? FileManager.default.removeItem(atPath: path)
        FileHandle.standardError.write(Data("building \(path) with \(rows) items…\n".utf8))
        guard let schema = FileManager.default.contents(atPath: schemaFile) else {
            throw BenchmarkError("cannot read \(schemaFile)")
        }
        let connection = try RawConnection(path: path)
        try connection.execute(String(decoding: schema, as: UTF8.self))
        try connection.execute(
            """
            BEGIN;
            INSERT INTO lists (id, name, color) VALUES
                (1, 'Groceries', 'green'), (2, 'Work', 'blue'), (3, 'Home', 'orange'), (4, 'Errands', 'purple'), (5, 'Reading', NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO items (list_id, title, notes, priority, done, due, created_at)
            SELECT
                1 + (i % 5),
                CASE i % 6 WHEN 0 THEN 'Buy ' WHEN 1 THEN 'Call ' WHEN 2 THEN 'Fix ' WHEN 3 THEN 'Read about '
                    WHEN 4 THEN 'Plan ' ELSE 'Review ' END
                || CASE (i * 7) % 10 WHEN 0 THEN 'milk' WHEN 1 THEN 'the bike' WHEN 2 THEN 'taxes' WHEN 3 THEN 'the garden'
                    WHEN 4 THEN 'SQLite' WHEN 5 THEN 'the roof' WHEN 6 THEN 'coffee beans' WHEN 7 THEN 'the 100% plan'
                    WHEN 8 THEN 'Mom''s birthday' ELSE 'snake_case names' END
                || ' #' || i,
                CASE WHEN i % 4 = 0 THEN NULL ELSE 'note for item ' || i END,
                (i * 13) % 6,
                CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END,
                CASE WHEN i % 5 = 0 THEN NULL
                     ELSE strftime('%Y-%m-%d %H:%M:%f', '2026-01-01', '+' || ((i * 37) % 365) || ' days', '+' || (i % 24) || ' hours')
                END,
                strftime('%Y-%m-%d %H:%M:%f', '2025-06-01', '+' || (i * 17 % 4000) || ' hours', '+' || (i % 60) || ' minutes')
            FROM n;
            COMMIT;
            """)
    }

    package static func count(_ path: String) throws -> Int {
        try RawConnection(path: path).integer("SELECT count(*) FROM items")
    }
}

/// A plain sqlite3 connection: another program, as far as sqlq is concerned.
package final class RawConnection {
    package let handle: OpaquePointer

    package init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle
        else {
            throw BenchmarkError("cannot open \(path)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5000)
    }

    deinit { sqlite3_close_v2(handle) }

    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw BenchmarkError("SQLite: \(message.map { String(cString: $0) } ?? "error") in \(sql.prefix(80))")
        }
    }

    package func integer(_ sql: String) throws -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw BenchmarkError("cannot prepare \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchmarkError("no row for \(sql)") }
        return Int(sqlite3_column_int64(statement, 0))
    }
}

/// A benchmark that cannot go on, and why.
package struct BenchmarkError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
