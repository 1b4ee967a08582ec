import Foundation
import SQLite
import Testing

/// PROJ's proj.db, a real database nobody here wrote: the EPSG geodetic dataset, about 50,000
/// rows, with foreign keys of two columns (`auth_name`, `code`) between its tables. It is not in
/// the repository; `Scripts/fetch-test-databases` puts it in `.test-databases/` (CI runs it).
/// Every expectation is computed from the file itself with plain SQL joins, so the tests hold for
/// any release of the data.
enum ProjDatabase {
    static let path: String? = {
        let file = Executable.repositoryRoot.appendingPathComponent(".test-databases/proj.db").path
        return FileManager.default.fileExists(atPath: file) ? file : nil
    }()

    /// The database, read-only on its own connection.
    static func read<T>(_ body: (Database) throws -> T) throws -> T {
        try body(try Database(path: try #require(path), configuration: .readOnly))
    }

    /// A copy for tests that write.
    static func copy() throws -> TestDatabase {
        let directory = try TemporaryDirectory()
        let copy = directory.file("proj.db")
        try FileManager.default.copyItem(atPath: try #require(path), toPath: copy.path)
        return TestDatabase(directory: directory, path: copy.path)
    }

    static func run(_ arguments: [String]) throws -> CommandResult {
        try Executable.run(arguments + ["--db", try #require(path)])
    }
}

// Skipped, saying why, when the database has not been fetched.
@Suite(
    "sqlq on a real database (PROJ's proj.db)",
    .enabled(if: ProjDatabase.path != nil, "proj.db is missing: run Scripts/fetch-test-databases to fetch it"),
    .onProcessThreads)
struct ProjDatabaseTests {
    @Test("A filter across two foreign keys of two columns counts what the equivalent joins count")
    func twoHops() throws {
        let expected = try ProjDatabase.read { db in
            try db.fetchOne(
                Int.self,
                """
                SELECT count(*) FROM geodetic_crs c
                JOIN geodetic_datum d ON d.auth_name = c.datum_auth_name AND d.code = c.datum_code
                JOIN ellipsoid e ON e.auth_name = d.ellipsoid_auth_name AND e.code = d.ellipsoid_code
                WHERE e.name = 'WGS 84'
                """) ?? -1
        }
        #expect(expected > 100)
        let result = try ProjDatabase.run([
            "query", "geodetic_crs", "--where", "datum_code.ellipsoid_code.name = 'WGS 84'", "--count",
        ])
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output == "\(expected)\n")
    }

    @Test("--columns reads across foreign keys, in the rows and order of the equivalent left joins")
    func columns() throws {
        let rows = try ProjDatabase.read { db in
            try db.fetchAll(
                """
                SELECT p.auth_name, CAST(p.code AS TEXT), p.name, g.name, v.name FROM projected_crs p
                LEFT JOIN geodetic_crs g ON g.auth_name = p.geodetic_crs_auth_name AND g.code = p.geodetic_crs_code
                LEFT JOIN conversion_table v ON v.auth_name = p.conversion_auth_name AND v.code = p.conversion_code
                WHERE g.name = 'WGS 84' AND p.name LIKE 'WGS 84 / UTM zone 3%'
                ORDER BY v.name DESC, p.auth_name, p.code
                """)
        }
        #expect(rows.count > 10)
        var expected = "auth_name\tcode\tname\tgeodetic_crs_code.name\tconversion_code.name\n"
        for row in rows {
            let cells = try (0..<5).map { index -> String in try row[index] as String? ?? "" }
            expected += cells.joined(separator: "\t") + "\n"
        }
        let result = try ProjDatabase.run([
            "query", "projected_crs",
            "--where", "geodetic_crs_code.name = 'WGS 84' and name like 'WGS 84 / UTM zone 3%'",
            "--columns", "auth_name,code,name,geodetic_crs_code.name,conversion_code.name",
            "--sort", "-conversion_code.name,auth_name,code", "--format", "tsv",
        ])
        #expect(result.status == 0)
        #expect(result.output == expected)
    }

    @Test("General querying: text search, ranges, nulls and counts match plain SQL")
    func general() throws {
        let cases: [(filter: String, sql: String)] = [
            (
                "name contains 'UTM zone 33N'",
                "SELECT count(*) FROM projected_crs WHERE instr(name, 'UTM zone 33N') > 0"
            ),
            (
                "deprecated and auth_name = 'EPSG'",
                "SELECT count(*) FROM projected_crs WHERE deprecated AND auth_name = 'EPSG'"
            ),
            ("text_definition is not null", "SELECT count(*) FROM projected_crs WHERE text_definition IS NOT NULL"),
            (
                "geodetic_crs_code.datum_code.name like '%1984%' and not deprecated",
                """
                SELECT count(*) FROM projected_crs p
                JOIN geodetic_crs g ON g.auth_name = p.geodetic_crs_auth_name AND g.code = p.geodetic_crs_code
                JOIN geodetic_datum d ON d.auth_name = g.datum_auth_name AND d.code = g.datum_code
                WHERE d.name LIKE '%1984%' AND NOT p.deprecated
                """
            ),
        ]
        for (filter, sql) in cases {
            let expected = try ProjDatabase.read { db in try db.fetchOne(Int.self, sql) ?? -1 }
            let result = try ProjDatabase.run(["query", "projected_crs", "--where", filter, "--count"])
            #expect(result.status == 0, "\(filter): \(result.errors)")
            #expect(result.output == "\(expected)\n", "\(filter)")
        }
        let usages = try ProjDatabase.read { db in
            try db.fetchOne(
                Int.self,
                """
                SELECT count(*) FROM usage u JOIN extent e ON e.auth_name = u.extent_auth_name AND e.code = u.extent_code
                WHERE e.name = 'World'
                """) ?? -1
        }
        #expect(usages > 100)
        let result = try ProjDatabase.run(["query", "usage", "--where", "extent_code.name = 'World'", "--count"])
        #expect(result.output == "\(usages)\n")
    }

    @Test("--explain: a filter runs from the foreign keys' indexes; a column finds each hop by the parent's key")
    func plan() throws {
        let filter = try ProjDatabase.run([
            "query", "geodetic_crs", "--where", "datum_code.ellipsoid_code.name = 'WGS 84'", "--explain",
        ])
        #expect(filter.status == 0)
        #expect(
            filter.output.contains(
                "SEARCH geodetic_crs USING INDEX geodetic_crs_datum_idx (datum_auth_name=? AND datum_code=?)"))
        #expect(filter.output.contains("(ellipsoid_auth_name=? AND ellipsoid_code=?)"))
        let result = try ProjDatabase.run([
            "query", "geodetic_crs", "--columns", "name,datum_code.ellipsoid_code.name", "--explain",
        ])
        #expect(result.status == 0)
        #expect(result.output.contains("SEARCH geodetic_crs.datum_code USING PRIMARY KEY (auth_name=? AND code=?)"))
        #expect(
            result.output.contains(
                "SEARCH geodetic_crs.datum_code.ellipsoid_code USING PRIMARY KEY (auth_name=? AND code=?)"))
    }

    @Test("A wrong step on the real schema names the table it looked in and the closest column")
    func wrongStep() throws {
        let typo = try ProjDatabase.run(["query", "projected_crs", "--where", "geodetic_crs_code.nmae = 'x'"])
        #expect(typo.status == 2)
        #expect(
            typo.errors.hasPrefix(
                "Error: --where: no such column: \"nmae\" in table \"geodetic_crs\"; did you mean \"name\"?\n"
                    + "  geodetic_crs_code.nmae = 'x'\n                    ^^^^\n"))
        let notKey = try ProjDatabase.run(["query", "projected_crs", "--columns", "name.name"])
        #expect(notKey.status == 2)
        #expect(notKey.errors.hasPrefix("Error: --columns: column \"name\" of \"projected_crs\" is not a foreign key"))
    }

    @Test("delete --where across a foreign key deletes exactly the rows the join names, in a copy")
    func delete() throws {
        let copy = try ProjDatabase.copy()
        let join = """
            SELECT count(*) FROM usage u JOIN extent e ON e.auth_name = u.extent_auth_name AND e.code = u.extent_code
            WHERE e.name = 'World'
            """
        let (matching, total) = (try copy.count(join), try copy.count("SELECT count(*) FROM usage"))
        #expect(matching > 0)
        let result = try copy.run(["delete", "usage", "--where", "extent_code.name = 'World'", "--yes"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "Deleted \(matching) rows from \"usage\".\n")
        #expect(try copy.count(join) == 0)
        #expect(try copy.count("SELECT count(*) FROM usage") == total - matching)
        #expect(try copy.count("SELECT count(*) FROM extent WHERE name = 'World'") > 0)
    }
}
