import Foundation
import Testing

@Suite("sqlq tables and schema")
struct SchemaCommandTests {
    @Test("tables lists tables and views, plainly or in a format")
    func tables() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE b(x, y); CREATE TABLE a(x); CREATE VIEW c AS SELECT x FROM a;
            """)
        let plain = try database.run(["tables"])
        #expect(plain.status == 0)
        #expect(plain.output == "a\nb\nc\n")
        let csv = try database.run(["tables", "--format", "csv"])
        #expect(csv.output == "name,type,columns\r\na,table,1\r\nb,table,2\r\nc,view,1\r\n")
    }

    @Test("schema prints the table's statement with its indexes, or its columns in a format")
    func schema() throws {
        let result = try Executable.run(["schema", "ITEMS"])
        #expect(result.status == 0)
        let statements = result.output.components(separatedBy: ";\n").filter { !$0.isEmpty }
        #expect(statements.count == 4)
        #expect(statements[0].hasPrefix("CREATE TABLE items ("))
        #expect(statements[1...].allSatisfy { $0.hasPrefix("CREATE INDEX items_by_") })

        let columns = try Executable.run(["schema", "lists", "--format", "tsv"])
        #expect(
            columns.output == """
                cid\tname\ttype\tnotnull\tdflt_value\tpk
                0\tid\tINTEGER\t0\t\t1
                1\tname\tTEXT\t1\t\t0
                2\tcolor\tTEXT\t0\t\t0

                """)
    }

    @Test("An unknown table is a usage error")
    func unknown() throws {
        let result = try Executable.run(["schema", "list"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("Error: no such table: \"list\"; did you mean \"lists\"?"))
    }
}
