import Foundation
import Testing

@Suite("sqlq tables and schema", .onProcessThreads)
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
                cid\tname\ttype\tnotnull\tdflt_value\tpk\tgenerated
                0\tid\tINTEGER\t0\t\\N\t1\t\\N
                1\tname\tTEXT\t1\t\\N\t0\t\\N
                2\tcolor\tTEXT\t0\t\\N\t0\t\\N

                """)
    }

    @Test("An unknown table is a usage error")
    func unknown() throws {
        let result = try Executable.run(["schema", "list"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("Error: no such table: \"list\"; did you mean \"lists\"?"))
    }

    @Test("Generated columns are columns: listed, counted, filtered, selected and faceted")
    func generatedColumns() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE t(a, b, c AS (a * 2), d GENERATED ALWAYS AS (a + 1) STORED);
            INSERT INTO t(a, b) VALUES (1, 'x'), (2, 'y'), (1, 'z');
            """)
        let columns = try database.run(["schema", "t", "--format", "csv"])
        #expect(columns.status == 0, "\(columns.errors)")
        #expect(
            columns.output == """
                cid,name,type,notnull,dflt_value,pk,generated\r
                0,a,"",0,,0,\r
                1,b,"",0,,0,\r
                2,c,"",0,,0,virtual\r
                3,d,"",0,,0,stored\r

                """)
        #expect(try database.run(["tables", "--format", "csv"]).output == "name,type,columns\r\nt,table,4\r\n")
        let filtered = try database.run(["query", "t", "--where", "c = 2", "--columns", "b,c,d", "--format", "csv"])
        #expect(filtered.status == 0, "\(filtered.errors)")
        #expect(filtered.output == "b,c,d\r\nx,2,2\r\nz,2,2\r\n")
        let facet = try database.run(["query", "t", "--facet", "c", "--format", "csv"])
        #expect(facet.status == 0, "\(facet.errors)")
        #expect(facet.output.contains("c,2,2"))
    }

    @Test("Hidden columns of virtual tables stay hidden, as in SQLite")
    func hiddenColumns() throws {
        let database = try TestDatabase.with("CREATE VIRTUAL TABLE f USING fts5(body);")
        #expect(
            try database.run(["schema", "f", "--format", "csv"]).output
                == "cid,name,type,notnull,dflt_value,pk,generated\r\n0,body,\"\",0,,0,\r\n")
        #expect(try database.run(["tables", "--format", "csv"]).output.contains("f,table,1\r\n"))
    }
}
