import Foundation
import Testing

@testable import sqlq

@Suite("sqlq sql", .onProcessThreads)
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

    @Test("A --param is a number only when it reads back as the same text; a prefix forces a type")
    func typedParameters() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE c(phone TEXT, zip TEXT);
            INSERT INTO c VALUES ('15551234567', '2134'), ('+15551234567', '02134');
            """)
        let phone = try database.run(["sql", "SELECT zip FROM c WHERE phone = ?", "--param", "+15551234567"])
        #expect(phone.lines == [" zip", "-------", " 02134", "(1 row)"])
        let zip = try database.run(["sql", "SELECT phone FROM c WHERE zip = ?", "--param", "02134"])
        #expect(zip.lines == [" phone", "--------------", " +15551234567", "(1 row)"])
        let cases = [
            ("42", "42"), ("-7", "-7"), ("1.5", "1.5"), ("-0.25", "-0.25"), ("1e3", "1000.0"), ("0", "0"),
            ("02134", "'02134'"), ("+5", "'+5'"), (" 5", "' 5'"), ("5 ", "'5 '"), ("-0", "'-0'"), (".5", "'.5'"),
            ("1.", "'1.'"), ("99999999999999999999", "'99999999999999999999'"), ("0x10", "'0x10'"), ("nan", "'nan'"),
            ("text:02134", "'02134'"), ("text:text:x", "'text:x'"), ("text:", "''"), ("integer:0042", "42"),
            ("integer:-9223372036854775808", "-9223372036854775808"), ("real:2", "2.0"), ("real:1e999", "Inf"),
            ("blob:00ff", "X'00FF'"), ("blob:", "X''"), ("http://x", "'http://x'"), ("Text:5", "'Text:5'"),
        ]
        for (parameter, quoted) in cases {
            let result = try database.run(["sql", "SELECT quote(?) AS v", "--param", parameter, "--format", "csv"])
            #expect(result.status == 0, "\(parameter): \(result.errors)")
            #expect(result.output == "v\r\n\(quoted)\r\n" || result.output == "v\r\n\"\(quoted)\"\r\n", "\(parameter)")
        }
        for bad in ["integer:1.5", "integer:99999999999999999999", "integer:", "real:abc", "blob:0", "blob:zz"] {
            let result = try database.run(["sql", "SELECT ?", "--param", bad])
            #expect(result.status == 2, "\(bad)")
            #expect(result.errors.contains("--param \(bad)"), "\(bad): \(result.errors)")
        }
    }

    @Test(
        "A statement that would write is refused with 2, saying what changes a database, and changes nothing",
        arguments: [true, false])
    func readOnly(onFile: Bool) throws {
        let statements = [
            "DELETE FROM items", "  /* c */ update items SET done = 1", "INSERT INTO lists(name) VALUES ('x')",
            "DROP TABLE items", "CREATE TABLE t(x)", "PRAGMA user_version = 7",
        ]
        let database = try TestDatabase.demo()
        let total = try database.count("SELECT count(*) FROM items")
        for statement in statements {
            let result = onFile ? try database.run(["sql", statement]) : try Executable.run(["sql", statement])
            #expect(result.status == 2, "\(statement): \(result.errors)")
            #expect(
                result.errors.hasPrefix("Error: sql only reads, and this statement would change the database"),
                "\(statement): \(result.errors)")
            #expect(result.errors.contains("sqlq import, sqlq delete or sqlq migrate"), "\(statement)")
            #expect(!result.errors.contains("readonly"), "\(statement): \(result.errors)")
        }
        #expect(try database.count("SELECT count(*) FROM items") == total)
        #expect(try database.count("PRAGMA user_version") == 0)
        // Reads that are not SELECT still run.
        let pragma = try database.run(["sql", "PRAGMA table_info(lists)", "--format", "csv"])
        #expect(pragma.status == 0, "\(pragma.errors)")
    }

    @Test("SQL errors are runtime errors, with the SQL")
    func errors() throws {
        let syntax = try Executable.run(["sql", "SELEC 1"])
        #expect(syntax.status == 1)
        #expect(syntax.errors.contains("syntax error"))
        #expect(syntax.errors.contains("SQL: SELEC 1"))
    }

    @Test("A wrong number of --param is a usage error naming both counts", arguments: [0, 1, 3])
    func parameterCount(given: Int) throws {
        let result = try Executable.run(
            ["sql", "SELECT ?, ?"] + (0..<given).flatMap { ["--param", "\($0)"] })
        #expect(result.status == 2)
        #expect(
            result.errors
                == "Error: the statement has 2 placeholders (?), but \(given) --param \(given == 1 ? "was" : "were") given; "
                + "give one --param for each placeholder\n")
        #expect(result.output.isEmpty)
    }

    @Test("More than one statement is a usage error that says what to do")
    func severalStatements() throws {
        let database = try TestDatabase.demo()
        let result = try database.run(["sql", "SELECT 1; DROP TABLE items"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("Error: sql runs one statement, and this SQL holds more after the first"))
        #expect(result.errors.contains("DROP TABLE items"))
        #expect(!result.errors.contains("executeScript") && !result.errors.contains("misuse"))
        #expect(try database.count("SELECT count(*) FROM items") == 12000)
        // A trailing semicolon or comment is still one statement.
        let one = try database.run(["sql", "SELECT 1; -- done", "--format", "csv"])
        #expect(one.status == 0)
        #expect(one.output == "1\r\n1\r\n")
    }

    @Test("Empty SQL is a usage error", arguments: ["", "   ", ";", "-- nothing", "/* nothing */ ;"])
    func emptySQL(sql: String) throws {
        // After "--", so that SQL starting with "--" is not read as an option.
        let result = try Executable.run(["sql", "--", sql])
        #expect(result.status == 2)
        #expect(
            result.errors.hasPrefix(
                "Error: the SQL is empty; give one statement, as in sqlq sql \"SELECT count(*) FROM items\""))
        #expect(!result.errors.contains("misuse"))
    }

    @Test(
        "A --param binds as a number only when it is a JSON number that reads back as written",
        arguments: [
            ("42", "integer"), ("-7", "integer"), ("+5", "text"), ("1.5", "real"), ("1e3", "real"), ("1.e3", "text"),
            (".5", "text"), ("007", "text"), ("0.5", "real"), ("1E-2", "real"), ("1e999", "text"), ("0x10", "text"),
            ("nan", "text"), ("inf", "text"), ("-infinity", "text"),
            (" 5", "text"), ("1e", "text"), ("1_000", "text"), ("", "text"), ("12abc", "text"),
        ])
    func parameterTypes(text: String, type: String) throws {
        #expect(
            {
                switch try? SQLCommand.value(text) {
                case .integer: "integer"
                case .real: "real"
                case .text: "text"
                default: "other"
                }
            }() == type)
        if type == "text" { #expect(try SQLCommand.value(text) == .text(text)) }
    }
}
