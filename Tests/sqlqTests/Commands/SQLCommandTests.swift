import Foundation
import Testing

@Suite("sqlq sql")
struct SQLCommandTests {
    @Test("Parameters are bound: integers, reals and text")
    func parameters() throws {
        let database = try TestDatabase.demo()
        let result = try database.run([
            "sql", "SELECT id, title FROM items WHERE priority >= ? AND title LIKE ? AND ? > 1 ORDER BY id LIMIT 3",
            "--param", "4", "--param", "Plan%", "--param", "1.5", "--format", "ndjson",
        ])
        #expect(result.status == 0)
        let expected = try database.read { db in
            try db.fetchAll(
                "SELECT id, title FROM items WHERE priority >= 4 AND title LIKE 'Plan%' ORDER BY id LIMIT 3")
        }
        #expect(
            result.lines
                == expected.map { row in "{\"id\":\(try! row[0] as Int64),\"title\":\"\(try! row[1] as String)\"}" })
        #expect(result.lines.count == 3)
    }

    @Test("The connection is read-only: writes fail with 1 and change nothing", arguments: [true, false])
    func readOnly(onFile: Bool) throws {
        let statement = "DELETE FROM items"
        if onFile {
            let database = try TestDatabase.demo()
            let total = try database.count("SELECT count(*) FROM items")
            let result = try database.run(["sql", statement])
            #expect(result.status == 1)
            #expect(result.errors.contains("readonly"))
            #expect(try database.count("SELECT count(*) FROM items") == total)
        } else {
            let result = try Executable.run(["sql", statement])
            #expect(result.status == 1)
            #expect(result.errors.contains("readonly") || result.errors.contains("query_only"))
        }
    }

    @Test("SQL errors are runtime errors, with the SQL")
    func errors() throws {
        let syntax = try Executable.run(["sql", "SELEC 1"])
        #expect(syntax.status == 1)
        #expect(syntax.errors.contains("syntax error"))
        #expect(syntax.errors.contains("SQL: SELEC 1"))
        let arguments = try Executable.run(["sql", "SELECT ?", "--param", "1", "--param", "2"])
        #expect(arguments.status == 1)
        #expect(arguments.errors.contains("wrong number of arguments"))
    }
}
