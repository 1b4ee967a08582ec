import Foundation
import Testing

@testable import SQLite

@Suite struct PersistenceErrorTests {
    @Test func handWrittenRecordsMustWriteOneValuePerColumn() throws {
        let db = try makeRecordsDatabase()
        struct Short: PersistableRecord {
            static let tableName = "items"
            static let databaseColumns = ["id", "title", "done"]
            func encode(to columns: inout ColumnEncoder) {
                columns.encode("milk" as String)
                columns.encode(true)
            }
        }
        let error = #expect(throws: PersistenceError.self) { try Short().inserted(db) }
        #expect(error == .columnCountMismatch(type: "Short", columns: ["id", "title", "done"], written: 2))
        #expect(error?.description.contains("wrote 2 value(s) for its 3 databaseColumns") == true)
        #expect(try ItemRecord.fetchCount(db) == 0)
    }

    @Test func recordsWithoutTheirKeyCanBeInsertedButNotFoundAgain() throws {
        let db = try makeRecordsDatabase()
        struct Keyless: PersistableRecord, Encodable {
            static let tableName = "items"
            var title: String
        }
        let record = try Keyless(title: "milk").inserted(db)
        #expect(try ItemRecord.fetchCount(db) == 1)
        let error = #expect(throws: PersistenceError.self) { try record.update(db) }
        #expect(error == .primaryKeyNotEncoded(type: "Keyless", table: "items", key: ["id"], columns: ["title"]))
        #expect(throws: PersistenceError.self) { try record.delete(db) }
        var upserted = record
        #expect(throws: PersistenceError.self) { try upserted.upsert(db) }
        #expect(try ItemRecord.fetchCount(db) == 1)
    }

    @Test func positionalValuesNeedDeclaredColumns() throws {
        let db = try makeRecordsDatabase()
        struct Unnamed: PersistableRecord, Encodable {
            static let tableName = "items"
            var title: String
            func encode(to columns: inout ColumnEncoder) { columns.encode(title) }
        }
        let error = #expect(throws: PersistenceError.self) { try Unnamed(title: "milk").inserted(db) }
        #expect(error == .noDatabaseColumns(type: "Unnamed"))
    }

    @Test func duplicateAndMissingColumns() throws {
        let db = try makeRecordsDatabase()
        struct Twice: PersistableRecord {
            static let tableName = "items"
            static let databaseColumns = ["title", "TITLE"]
            func encode(to columns: inout ColumnEncoder) {
                columns.encode("a" as String)
                columns.encode("b" as String)
            }
        }
        #expect(throws: PersistenceError.duplicateColumn(type: "Twice", column: "TITLE")) { try Twice().inserted(db) }
        struct Empty: PersistableRecord, Encodable {
            static let tableName = "items"
        }
        #expect(throws: PersistenceError.noColumns(type: "Empty")) { try Empty().inserted(db) }
    }

    @Test func encodableRecordsWithDeclaredColumnsAreReorderedOrRejected() throws {
        let db = try makeRecordsDatabase()
        struct Declared: PersistableRecord, Encodable {
            static let tableName = "items"
            static let databaseColumns = ["title", "id"]
            var id: Int64?
            var title: String
            mutating func didInsert(rowID: Int64) { id = rowID }
        }
        let record = try Declared(id: nil, title: "milk").inserted(db)
        #expect(record.id == 1)
        #expect(try db.fetchOne(String.self, "SELECT title FROM items WHERE id = 1") == "milk")

        struct Mismatched: PersistableRecord, Encodable {
            static let tableName = "items"
            static let databaseColumns = ["title", "done"]
            var title: String
            var priority: Int
        }
        let error = #expect(throws: PersistenceError.self) { try Mismatched(title: "x", priority: 1).inserted(db) }
        #expect(
            error
                == .codingKeysMismatch(
                    type: "Mismatched", declared: ["title", "done"], encoded: ["title", "priority"]))
        #expect(try ItemRecord.fetchCount(db) == 1)
    }

    @Test func encodableRecordsThatOmitKeysGetALayoutPerColumnSet() throws {
        let db = try makeRecordsDatabase()
        struct Sparse: PersistableRecord, Encodable {
            static let tableName = "items"
            var id: Int64?
            var title: String
            var priority: Int?
            enum CodingKeys: String, CodingKey { case id, title, priority }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(title, forKey: .title)
                if let priority { try container.encode(priority, forKey: .priority) }
            }
        }
        try Sparse(title: "a", priority: 3).inserted(db)
        try Sparse(title: "b").inserted(db)
        try Sparse(title: "c", priority: 1).inserted(db)
        #expect(
            try db.fetchAll("SELECT title, priority FROM items ORDER BY id").map(\.values)
                == [["a", 3], ["b", .null], ["c", 1]])
        #expect(
            try Sparse(title: "a", priority: 3).encodedValues().layout !== Sparse(title: "b").encodedValues().layout)
        #expect(
            try Sparse(title: "a", priority: 3).encodedValues().layout
                === Sparse(title: "c", priority: 1).encodedValues().layout)
    }

    @Test func recordsMustEncodeAKeyedContainer() throws {
        let db = try makeRecordsDatabase()
        struct Scalar: PersistableRecord, Encodable {
            static let tableName = "items"
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(1)
            }
        }
        let error = #expect(throws: PersistenceError.self) { try Scalar().inserted(db) }
        #expect(
            error?.description
                == "Scalar cannot be written as a row: it encodes as a single value; a record encodes a keyed container whose keys name columns"
        )

        struct Huge: PersistableRecord, Encodable {
            static let tableName = "items"
            var title = "x"
            var priority = UInt64.max
        }
        #expect(throws: EncodingError.self) { try Huge().inserted(db) }
        #expect(try ItemRecord.fetchCount(db) == 0)
    }

    @Test func aRowSkippedByATriggerIsReportedByReturningWrites() throws {
        let db = try makeRecordsDatabase()
        try db.execute(
            "CREATE TRIGGER skip BEFORE INSERT ON items WHEN NEW.title = 'skip' BEGIN SELECT RAISE(IGNORE); END")
        var record = ItemRecord(title: "skip")
        let error = #expect(throws: PersistenceError.self) { try record.insert(db, returning: Column("id")) }
        #expect(error?.description.hasPrefix(#"nothing was written to "items": a trigger ignored the row"#) == true)
        try ItemRecord(title: "kept").inserted(db)
        #expect(try record.insert(db) == 0)
        #expect(record.id == nil)  // not the rowid of the earlier insert
        var saved = ItemRecord(title: "skip")
        #expect(try saved.save(db) == 0)
        #expect(saved.id == nil)
        #expect(try ItemRecord.all().fetchAll(db).map(\.title) == ["kept"])
    }
}
