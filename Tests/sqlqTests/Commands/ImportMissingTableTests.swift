import Foundation
import Testing

/// A table that does not exist is what `import` reports first, whatever the file holds: the
/// command creates no table, so nothing in the file could be imported.
@Suite("sqlq import: a missing table", .onProcessThreads)
struct ImportMissingTableTests {
    @Test("A missing table is reported before the file: empty, malformed, unreadable or fine")
    func missingTableFirst() throws {
        let database = try TestDatabase.with("CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT);")
        let directory = database.directory
        let files: [[String]] = [
            ["/dev/null", "--format", "csv"],
            ["/dev/null", "--format", "ndjson"],
            [try directory.write("empty.csv", "")],
            [try directory.write("header.csv", "name\nAnn\n")],
            [try directory.write("broken.json", "[{\"name\": ")],
            [directory.file("absent.csv").path],
        ]
        for file in files {
            let result = try database.run(["import", "nosuch"] + file)
            #expect(result.status == 2, "\(file): \(result.errors)")
            #expect(result.errors.hasPrefix("Error: no such table: \"nosuch\"\n"), "\(file): \(result.errors)")
            #expect(result.errors.contains("  tables: people\n"), "\(file): \(result.errors)")
            #expect(
                result.errors.contains("import creates no table"), "\(file): \(result.errors)")
            #expect(!result.errors.contains("empty") && !result.errors.contains("absent"), "\(file): \(result.errors)")
        }
        #expect(try database.count("SELECT count(*) FROM sqlite_master WHERE name = 'nosuch'") == 0)
    }
}
