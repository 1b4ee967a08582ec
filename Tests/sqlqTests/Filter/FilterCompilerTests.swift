import SQLite
import Testing

@testable import sqlq

@Suite("Filter compiler", .onProcessThreads)
struct FilterCompilerTests {
    let db: Database
    let schema: TableSchema

    init() throws {
        db = try Database()
        try db.executeScript(
            """
            CREATE TABLE things (
                id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL, done INTEGER NOT NULL DEFAULT 0,
                due TEXT, created DATETIME, payload BLOB, "order" INTEGER
            );
            INSERT INTO things (title, score, done, due, created, "order") VALUES
                ('Buy milk', 1.5, 0, '2026-03-01', '2026-01-01 10:00:00.000', 3),
                ('it''s 100% done', 2.5, 1, '2026-03-15 09:30:00.000', '2026-01-02 10:00:00.000', 1),
                ('snake_case', NULL, 0, NULL, '2026-01-03 10:00:00.000', 2),
                ('Buy bread', 4.0, 1, '2026-04-01', '2026-01-04 10:00:00.000', NULL);
            """)
        schema = try TableSchema(db, table: "things")
    }

    private func compile(_ expression: String) throws -> SQLExpression {
        try FilterCompiler.compile(expression, schema: schema, db: db)
    }

    private func ids(_ expression: String) throws -> [Int64] {
        try Table("things").all().filter(try compile(expression)).select(Column("id")).sort(Column("id"))
            .asRequest(of: Int64.self).fetchAll(db)
    }

    private func ids(sql condition: String, _ arguments: [DatabaseValue] = []) throws -> [Int64] {
        try db.fetchAll(Int64.self, "SELECT id FROM things WHERE \(condition) ORDER BY id", arguments)
    }

    @Test("Columns are quoted and every value is a bound parameter")
    func rendering() throws {
        let expression = try compile("score >= 2 and not done or title contains '100%' or id in (1, 2)")
        #expect(expression.sql == #"("score" >= ? AND NOT "done") OR "title" LIKE ? ESCAPE '\' OR "id" IN (?, ?)"#)
        #expect(expression.arguments == [.integer(2), .text("%100\\%%"), .integer(1), .integer(2)])
    }

    @Test(
        "Filters select the rows SQLite selects for the same condition",
        arguments: [
            ("score >= 2", "score >= ?", [DatabaseValue.integer(2)]),
            ("not done", "NOT done", []),
            ("done = true", "done = 1", []),
            ("title like 'buy%'", "title LIKE 'buy%'", []),
            ("title glob 'Buy*'", "title GLOB 'Buy*'", []),
            ("title contains '_'", "instr(title, '_') > 0", []),
            ("title contains '100%'", "instr(title, '100%') > 0", []),
            ("title not contains 'Buy'", "instr(title, 'Buy') = 0", []),
            ("id in (1, 3, 9)", "id IN (1, 3, 9)", []),
            ("id not in (1, 3)", "id NOT IN (1, 3)", []),
            ("score between 1 and 3", "score BETWEEN 1 AND 3", []),
            ("due is null", "due IS NULL", []),
            ("due is not null and due < 2026-03-15", "due IS NOT NULL AND due < '2026-03-15'", []),
            ("due >= 2026-03-15T09:30", "due >= '2026-03-15 09:30:00.000'", []),
            (
                "created between 2026-01-02 and 2026-01-03T23:59",
                "created BETWEEN '2026-01-02' AND '2026-01-03 23:59:00.000'", []
            ),
            ("due = null", "due IS NULL", []),
            ("score != null", "score IS NOT NULL", []),
            ("3 > \"order\"", "\"order\" < 3", []),
            ("id < \"order\"", "id < \"order\"", []),
            (
                "(done or score > 3) and not (title = 'Buy bread')",
                "(done OR score > 3) AND NOT (title = 'Buy bread')", []
            ),
            ("TITLE = 'snake_case'", "title = 'snake_case'", []),
            ("score >= '2'", "score >= 2", []),
        ])
    func results(filter: String, condition: String, arguments: [DatabaseValue]) throws {
        #expect(try ids(filter) == (try ids(sql: condition, arguments)))
    }

    @Test("A value that looks like SQL stays a value")
    func injectionInValues() throws {
        let expression = try compile("title = 'x'' OR 1=1 --'")
        #expect(expression.arguments == [.text("x' OR 1=1 --")])
        #expect(try ids("title = 'x'' OR 1=1 --'").isEmpty)
        #expect(try ids("title = 'Buy milk'' --'").isEmpty)
    }

    @Test("A name that looks like SQL is an unknown column, checked before any SQL runs")
    func injectionInNames() throws {
        for expression in [#""id"" = 1 OR ""1" = 1"#, #""title; DROP TABLE things" = 1"#] {
            #expect {
                try compile(expression)
            } throws: { error in
                guard let error = error as? FilterError, case .unknownColumn = error.reason else { return false }
                return true
            }
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM things") == 4)
    }

    @Test("An unknown column lists the columns and suggests the closest")
    func unknownColumn() throws {
        do {
            _ = try compile("done and titel contains 'milk'")
            Issue.record("expected an error")
        } catch let error as FilterError {
            guard case .unknownColumn(let schemaError) = error.reason else {
                Issue.record("unexpected reason \(error.reason)")
                return
            }
            #expect(schemaError.suggestion == "title")
            #expect(schemaError.available == ["id", "title", "score", "done", "due", "created", "payload", "order"])
            #expect(error.position == 9 && error.length == 5)
            #expect(error.description.contains("did you mean \"title\"?"))
            #expect(error.description.contains("columns of \"things\": id, title, score"))
        }
    }

    @Test(
        "Values must fit the column's declared type",
        arguments: [
            (
                "score > 'high'", 8,
                "type mismatch: column \"score\" (REAL) holds numbers, but the string 'high' is text"
            ),
            (
                "id = 2026-01-01", 5,
                "type mismatch: column \"id\" (INTEGER) holds numbers, but the date 2026-01-01 is a date"
            ),
            ("title = true", 8, "type mismatch: column \"title\" (TEXT) holds text, but true is a boolean"),
            (
                "id in (1, 'two')", 10,
                "type mismatch: column \"id\" (INTEGER) holds numbers, but the string 'two' is text"
            ),
            (
                "title", 0,
                "type mismatch: column \"title\" holds text, so on its own it is not a true/false test; compare it instead, as in title != ''"
            ),
            ("score < null", 8, "type mismatch: null has no order; test it with \"is null\" or \"is not null\""),
        ])
    func typeMismatches(filter: String, position: Int, message: String) {
        #expect {
            try compile(filter)
        } throws: { error in
            guard let error = error as? FilterError, case .typeMismatch(let text) = error.reason else { return false }
            return text == message && error.position == position
        }
    }

    @Test(
        "Text for a number column must be a number SQLite reads as one",
        arguments: ["0x5", "nan", "inf", "-infinity", "1e", "0x1p3", "1_000", ""])
    func textThatIsNotANumber(text: String) {
        #expect {
            try compile("score = '\(text)'")
        } throws: { error in
            guard let error = error as? FilterError, case .typeMismatch(let message) = error.reason else {
                return false
            }
            return message.contains("holds numbers") && error.position == 8
        }
    }

    @Test("Text that SQLite reads as a number is bound as that number")
    func numericText() throws {
        #expect(try compile("id = ' 3 '").arguments == [.integer(3)])
        #expect(try compile("score in ('2.5', '1e1')").arguments == [.real(2.5), .integer(10)])
        #expect(try ids("score >= ' 2.5'") == (try ids(sql: "score >= 2.5")))
    }

    @Test("A comparison needs a column")
    func twoValues() {
        #expect {
            try compile("3 = 4")
        } throws: { error in
            guard let error = error as? FilterError, case .syntax(let text) = error.reason else { return false }
            return text == "a comparison needs a column on at least one side" && error.position == 0
                && error.length == 5
        }
    }

    @Test("Columns without a number type take any value; dates compare with DATETIME columns")
    func lenientColumns() throws {
        _ = try compile("payload = 'x' and created > 2026-01-01 and created < 'soon'")
    }
}
