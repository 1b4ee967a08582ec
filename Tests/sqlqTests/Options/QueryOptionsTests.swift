import ArgumentParser
import SQLite
import Testing

@testable import sqlq

@Suite("Query options", .onProcessThreads)
struct QueryOptionsTests {
    let db: Database

    init() throws {
        db = try Database()
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, due TEXT);
            INSERT INTO items(title, priority, due) VALUES
                ('a', 1, '2026-03-01'), ('b', 3, '2026-02-01'), ('c', 3, NULL), ('d', 5, '2026-01-01');
            """)
    }

    private func query(_ arguments: [String]) throws -> TableQuery {
        try QueryOptions.parse(arguments).makeQuery(db)
    }

    @Test("Every option is read, and repeated options add up")
    func parsing() throws {
        let options = try QueryOptions.parse([
            "items", "--where", "priority >= 3", "--where", "not done", "--sort", "-due,priority", "--sort", "id",
            "--limit", "10", "--offset", "5", "--columns", "id,title", "--count", "--format", "json", "--explain",
        ])
        #expect(options.table == "items")
        #expect(options.filters == ["priority >= 3", "not done"])
        #expect(options.sort == ["-due,priority", "id"])
        #expect(options.limit == 10 && options.offset == 5)
        #expect(options.columns == ["id,title"])
        #expect(options.count && options.explain)
        #expect(options.format == .json)
        let defaults = try QueryOptions.parse(["items"])
        #expect(defaults.filters.isEmpty && defaults.limit == nil && defaults.offset == nil && !defaults.count)
        #expect(defaults.format == .table)
    }

    @Test(
        "--limit and --offset take a non-negative integer, including values that look like options",
        arguments: ["-1", "-0x1", "abc", "1.5", "", " 3", "1e3", "99999999999999999999"])
    func badCounts(value: String) throws {
        for option in ["--limit", "--offset"] {
            do {
                _ = try QueryOptions.parse(["items", option, value])
                Issue.record("\(option) \(value) was accepted")
            } catch {
                let message = QueryOptions.message(for: error)
                #expect(
                    message.hasPrefix(
                        "\(option) must be a non-negative integer, such as \(option) 10; \"\(value)\" is not one"))
                #expect(QueryOptions.exitCode(for: error).rawValue != 0)
                if value == "99999999999999999999" { #expect(message.contains("larger than \(Int.max)")) }
            }
        }
        #expect(try QueryOptions.parse(["items", "--limit", "0", "--offset", "+2"]).offset == 2)
    }

    @Test("The query: filters ANDed, sort terms in order, columns selected, limit and offset bound")
    func query() throws {
        let query = try query([
            "items", "--where", "priority >= 3", "--where", "due is not null or id = 3", "--sort", "-priority, +id",
            "--columns", "id, title", "--limit", "2", "--offset", "1",
        ])
        #expect(
            query.sql
                == #"SELECT "id", "title" FROM "items" WHERE "priority" >= ? AND ("due" IS NOT NULL OR "id" = ?) ORDER BY "priority" DESC, "id" ASC LIMIT ? OFFSET ?"#
        )
        #expect(query.arguments == [3, 3, 2, 1])
        #expect(try query.fetch(db).rows == [[2, "b"], [3, "c"]])
    }

    @Test("An offset without a limit reads every row after it; --count counts the filtered rows")
    func offsetAndCount() throws {
        let offset = try query(["items", "--offset", "3"])
        #expect(offset.arguments == [-1, 3])
        #expect(try offset.fetch(db).rows.count == 1)
        let count = try query(["items", "--where", "priority = 3", "--count"])
        #expect(count.counts)
        #expect(count.sql == #"SELECT count(*) FROM "items" WHERE "priority" = ?"#)
        #expect(try count.fetch(db) == .count(2))
    }

    @Test("Names in --sort and --columns are checked, and errors point into the option")
    func unknownNames() throws {
        do {
            _ = try query(["items", "--sort", "id, -prioritty"])
            Issue.record("expected an error")
        } catch let error as FilterError {
            #expect(error.option == "--sort")
            #expect(error.position == 5 && error.length == 9)
            #expect(error.description.hasPrefix("--sort: no such column: \"prioritty\""))
            #expect(error.description.contains("did you mean \"priority\"?"))
        }
        do {
            _ = try query(["items", "--columns", "id,,title"])
            Issue.record("expected an error")
        } catch let error as FilterError {
            #expect(error.option == "--columns")
            #expect(error.message == "a column name is missing")
            #expect(error.position == 3)
        }
        #expect(throws: SchemaError.self) { try query(["itemz"]) }
    }

    @Test("Comma-separated terms are trimmed and keep where they start")
    func terms() {
        let terms = QueryOptions.terms(" id , title,,")
        #expect(terms.map(\.0) == ["id", "title", "", ""])
        #expect(terms.map(\.1) == [1, 6, 12, 13])
    }
}
