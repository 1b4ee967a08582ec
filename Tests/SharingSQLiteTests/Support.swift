import Foundation
import Glibc
@_exported import LiveValueTesting
import Locking
import Observation
import Testing

@testable import LiveQuery
@testable import SharingSQLite

struct Item: FetchableRow, Equatable, Sendable {
    var id: Int64
    var title: String
    init(id: Int64, title: String) {
        self.id = id
        self.title = title
    }
    init(row: BorrowedRow) throws {
        id = try row[0]
        title = try row[1]
    }
}

struct CodableItem: FetchableRow, Decodable, Equatable, Sendable {
    var id: Int64
    var title: String
}

/// The value of `task`, which is cancelled, and the wait a failure, if it takes longer than
/// `hangLimit`.
func value<T: Sendable>(of task: Task<T, Never>, waitingFor what: String) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await task.value }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            task.cancel()
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw TimedOut(description: "waited \(hangLimit) for \(what), in vain")
        }
        return value
    }
}

func makeItemsDatabase() throws -> DatabaseQueue {
    let db = try DatabaseQueue()
    try db.write { db in
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute("CREATE TABLE other(id INTEGER PRIMARY KEY, note TEXT)")
        try db.execute("INSERT INTO items(title) VALUES ('a'), ('b')")
    }
    return db
}

func temporaryDatabasePath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "SharingSQLiteTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("test.sqlite").path
}
