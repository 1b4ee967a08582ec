import SQLite
import Testing

@testable import sqlq

@Suite("Table schema", .onProcessThreads)
struct TableSchemaTests {
    @Test(
        "A declared type gives SQLite's affinity",
        arguments: [
            ("INTEGER", TableSchema.Affinity.integer), ("BIGINT", .integer), ("int8", .integer),
            ("VARCHAR(20)", .text), ("CLOB", .text), ("text", .text),
            ("", .blob), ("BLOB", .blob),
            ("REAL", .real), ("FLOAT", .real), ("DOUBLE PRECISION", .real),
            ("NUMERIC", .numeric), ("DECIMAL(10,5)", .numeric), ("DATE", .numeric), ("BOOLEAN", .numeric),
            // The rules' order matters: "INT" wins over the rest, "CHAR" over "REAL".
            ("CHARINT", .integer), ("FLOATING POINT", .integer), ("REALCHAR", .text),
        ])
    func affinity(declaredType: String, affinity: TableSchema.Affinity) {
        #expect(TableSchema.Affinity(declaredType: declaredType) == affinity)
    }

    @Test("Only integer and real columns hold numbers alone")
    func holdsNumbers() {
        #expect(TableSchema.Affinity.integer.holdsNumbers)
        #expect(TableSchema.Affinity.real.holdsNumbers)
        #expect(!TableSchema.Affinity.numeric.holdsNumbers)
        #expect(!TableSchema.Affinity.text.holdsNumbers)
        #expect(!TableSchema.Affinity.blob.holdsNumbers)
    }

    static func database() throws -> Database {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE Tasks(id INTEGER PRIMARY KEY, Title TEXT NOT NULL, score REAL, due DATE, data);
            CREATE VIEW open_tasks AS SELECT id, Title FROM Tasks;
            """)
        return db
    }

    @Test("The columns of a table, in order, with their declared types")
    func columns() throws {
        let db = try Self.database()
        let schema = try TableSchema(db, table: "tasks")
        #expect(schema.name == "Tasks", "the name as the schema spells it")
        #expect(schema.columns.map(\.name) == ["id", "Title", "score", "due", "data"])
        #expect(schema.columns.map(\.declaredType) == ["INTEGER", "TEXT", "REAL", "DATE", ""])
        #expect(schema.columns.map(\.affinity) == [.integer, .text, .real, .numeric, .blob])
    }

    @Test("A view has columns too")
    func view() throws {
        let schema = try TableSchema(try Self.database(), table: "open_tasks")
        #expect(schema.columns.map(\.name) == ["id", "Title"])
    }

    @Test("An unknown table is a schema error that names the closest")
    func unknownTable() throws {
        let db = try Self.database()
        let error = try #require(throws: SchemaError.self) { try TableSchema(db, table: "task") }
        #expect("\(error)".contains("Tasks"))
    }

    @Test("Columns are found exactly, then ignoring case; unknown ones are schema errors")
    func column() throws {
        let db = try Self.database()
        let schema = try TableSchema(db, table: "Tasks")
        #expect(try schema.column("Title", in: db).name == "Title")
        #expect(try schema.column("title", in: db).name == "Title")
        #expect(try schema.column("SCORE", in: db).affinity == .real)
        let error = try #require(throws: SchemaError.self) { try schema.column("titel", in: db) }
        #expect("\(error)".contains("Title"))
    }

    /// SQLite matches names ignoring the case of ASCII letters only, so `"ä"` is no name for `"Ä"`.
    @Test("Columns that differ in non-ASCII case or in Unicode normalization are other columns")
    func nonASCIICase() throws {
        let db = try Database()
        try db.execute(#"CREATE TABLE k(id INTEGER PRIMARY KEY, "Äpfel" REAL, "\#u{E9}" TEXT)"#)
        let schema = try TableSchema(db, table: "k")
        #expect(try schema.column("ÄPFEL", in: db).affinity == .real)
        #expect(throws: SchemaError.self) { try schema.column("äpfel", in: db) }
        #expect(throws: SchemaError.self) { try schema.column("e\u{301}", in: db) }
    }
}
