import ChildProcesses
import Foundation
import Glibc
import Testing

@testable import SharingSQLite

/// What a monitor reported, in order.
private enum Report: Equatable, Sendable {
    case started
    case changed
    case moved(FileChangeMonitor.Move)
}

/// Starts a monitor on `path` whose reports arrive on the returned stream. A change counts only
/// when `changed` says so, since the fallback poll also calls `onChange`, with nothing changed.
private func startMonitor(
    _ path: String, changed: @escaping @Sendable () -> Bool = { true }
) -> (FileChangeMonitor, AsyncStream<Report>) {
    let (stream, continuation) = AsyncStream.makeStream(of: Report.self)
    let monitor = FileChangeMonitor(
        path: path,
        onStart: { continuation.yield(.started) },
        onChange: { if changed() { continuation.yield(.changed) } },
        onMove: { move in
            continuation.yield(.moved(move))
            continuation.finish()
        })
    return (monitor, stream)
}

/// The next report (nil once the stream ended), or a failure after `hangLimit`.
private func next(_ reports: AsyncStream<Report>) async throws -> Report? {
    try await withThrowingTaskGroup(of: Report?.self) { group in
        group.addTask {
            for await report in reports { return report }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            throw TimedOut(description: "the monitor reported nothing within \(hangLimit)")
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

@Suite struct FileChangeMonitorTests {
    @Test func aCommitByAnotherProcessWakesTheMonitor() async throws {
        let path = temporaryDatabasePath()
        let observer = try DatabaseQueue(path: path)
        try await observer.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT)") }
        let baseline = try observer.writeWithoutTransaction { db in try db.dataVersion }
        let (monitor, reports) = startMonitor(path) {
            // Only another connection's commit moves it.
            (try? observer.writeWithoutTransaction { db in try db.dataVersion }) != baseline
        }
        defer { monitor.stop() }
        #expect(try await next(reports) == .started)

        try SQLiteShell.run(path, "INSERT INTO items(title) VALUES ('from the shell')")
        #expect(try await next(reports) == .changed)
    }

    @Test func aDeletedFileIsReported() async throws {
        let path = temporaryDatabasePath()
        try Database(path: path).execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
        let (monitor, reports) = startMonitor(path) { false }
        defer { monitor.stop() }
        #expect(try await next(reports) == .started)
        try FileManager.default.removeItem(atPath: path)
        #expect(try await next(reports) == .moved(.deleted))
        #expect(try await next(reports) == nil, "nothing after the move")
    }

    @Test func aFileReplacedByAnotherIsReported() async throws {
        let path = temporaryDatabasePath()
        try Database(path: path).execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
        let replacement = path + ".new"
        try Database(path: replacement).execute("CREATE TABLE other(id INTEGER PRIMARY KEY)")
        let (monitor, reports) = startMonitor(path) { false }
        defer { monitor.stop() }
        #expect(try await next(reports) == .started)
        #expect(rename(replacement, path) == 0)
        #expect(try await next(reports) == .moved(.replaced))
    }

    @Test func aPathThatNamedNoFileAtTheStartIsNotReportedDeleted() async throws {
        // Such as a `file:` URI, which SQLite opens but the file system does not know.
        let path = temporaryDatabasePath() + "?mode=ro"
        let (monitor, reports) = startMonitor(path) { true }
        defer { monitor.stop() }
        #expect(try await next(reports) == .started)
        // The fallback poll wakes it: a change, since it cannot tell, and not a deletion.
        #expect(try await next(reports) == .changed)
    }
}
