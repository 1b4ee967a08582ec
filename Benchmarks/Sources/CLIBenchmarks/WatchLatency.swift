import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Milliseconds from a commit made by another connection (this process's raw sqlite3
/// connection, which sqlq sees as another program) to sqlq's redraw of the changed result
/// appearing on its standard output, a pipe.
enum WatchLatency {
    /// The status line `watch` writes after each result, when its output is not a terminal.
    static let statusLine = Array("\n-- ".utf8)

    static func measure(sqlq: String, database: String, commits: Int) throws -> [Double] {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw BenchmarkError("pipe failed") }
        let watch = try ChildProcess(
            [
                sqlq, "watch", "items", "--where", "priority = 5 and due >= 2026-12-31T12:00", "--count", "--db",
                database,
            ],
            output: descriptors[1])
        close(descriptors[1])
        defer { close(descriptors[0]) }
        var reader = PipeReader(descriptor: descriptors[0])
        var seen: [UInt8] = []

        /// Reads until the output holds `count` status lines.
        func waitForStatusLines(_ count: Int) throws {
            while occurrences(statusLine, in: seen) < count {
                guard let chunk = try reader.read() else {
                    throw BenchmarkError("sqlq watch ended early: \(String(decoding: seen, as: UTF8.self))")
                }
                seen += chunk
            }
        }

        try waitForStatusLines(1)
        let writer = try RawConnection(path: database)
        var latencies: [Double] = []
        for commit in 1...commits {
            try writer.execute(
                """
                INSERT INTO items (list_id, title, priority, done, due, created_at)
                VALUES (1, 'watch benchmark', 5, 0, '2026-12-31 23:59:00.000', '2026-01-01 00:00:00.000')
                """)
            let committed = Clock.now
            try waitForStatusLines(commit + 1)
            latencies.append(Clock.milliseconds(since: committed))
        }
        watch.signal(SIGINT)
        while (try reader.read()) != nil {}
        try watch.wait()
        try writer.execute("DELETE FROM items WHERE title = 'watch benchmark'")
        return latencies
    }

    private static func occurrences(_ needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard haystack.count >= needle.count else { return 0 }
        var count = 0
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }
}
