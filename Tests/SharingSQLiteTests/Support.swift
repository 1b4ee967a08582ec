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

func makeItemsDatabase() throws -> DatabaseQueue {
    let db = try DatabaseQueue()
    try db.write { db in
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute("CREATE TABLE other(id INTEGER PRIMARY KEY, note TEXT)")
        try db.execute("INSERT INTO items(title) VALUES ('a'), ('b')")
    }
    return db
}
