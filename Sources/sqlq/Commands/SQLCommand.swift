import ArgumentParser
import CSQLite
import SQLite

/// `sqlq sql "SELECT …"`: raw SQL, read-only, with bound parameters.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run one read-only SQL statement, with bound parameters.",
        discussion: """
            The database is opened read-only, and a statement that would change it (INSERT, \
            UPDATE, DELETE, CREATE, a pragma that sets a value) is refused with exit status 2: \
            change a database with import, delete or migrate, or the sqlite3 shell. Each --param \
            binds the next ? of the statement. A value written as JSON writes a number binds as \
            one: 42 and -7 as integers, 1.5 and 1e3 as reals. Anything else binds as text, \
            including values a number would change: 02134, +15551234567, -0, " 5", and whole \
            numbers beyond 64 bits. A prefix sets the type: text:02134 is text, integer:0042 \
            the integer 42, real:2 the real 2.0, blob:00FF a blob of those hexadecimal bytes \
            (text:text:x binds "text:x").

            Examples:
              sqlq sql "SELECT list_id, count(*) AS open FROM items WHERE NOT done GROUP BY list_id"
              sqlq sql "SELECT title FROM items WHERE priority >= ? AND title LIKE ?" --param 4 --param "Buy%"
              sqlq sql "SELECT * FROM contacts WHERE zip = ?" --param text:02134
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "One SQL statement.")
    var sql: String

    @Option(
        name: .customLong("param"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A value for the next ? placeholder, optionally typed (text:, integer:, real:, blob:). Repeat for each one.",
            valueName: "value"))
    var parameters: [String] = []

    @Option(help: "The output format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat = .table

    func run() throws {
        if Self.isBlank(sql) {
            throw CommandError.usage(
                "the SQL is empty; give one statement, as in sqlq sql \"SELECT count(*) FROM items\"")
        }
        let connection = try database.open(.stream)
        let output = OutputStream(fileDescriptor: 1)
        let arguments = try parameters.map(Self.value)
        try connection.read { db in
            try check(db, arguments: arguments)
            try format.write(db, sql: sql, arguments: arguments, to: output, style: .forDescriptor(1))
        }
        output.flush()
    }

    /// SQLITE_MISUSE: what preparing reports for SQL that is not exactly one statement.
    private static let misuse: Int32 = 21

    /// Prepares the statement once to turn the mistakes of the command line into usage errors:
    /// more than one statement, a statement that would write, and a number of `--param` that
    /// does not match the placeholders.
    private func check(_ db: Database, arguments: [DatabaseValue]) throws {
        let statement: Statement
        do {
            statement = try db.makeStatement(sql)
        } catch let error as SQLiteError where error.code == Self.misuse {
            // The one misuse preparing reports once the SQL is known not to be blank.
            throw CommandError.usage(
                "sql runs one statement, and this SQL holds more after the first; "
                    + "run them one at a time, or with the sqlite3 shell for a script:\n  "
                    + TableWriter.visible(sql))
        }
        // The read-only connection would refuse it too, but with SQLite's words, not what to do.
        guard sqlite3_stmt_readonly(statement.sqliteHandle) != 0 else {
            throw CommandError.usage(
                "sql only reads, and this statement would change the database; change it with "
                    + "sqlq import, sqlq delete or sqlq migrate, or with the sqlite3 shell:\n  "
                    + TableWriter.visible(sql))
        }
        guard statement.parameterCount == arguments.count else {
            let placeholders =
                statement.parameterCount == 1 ? "1 placeholder" : "\(statement.parameterCount) placeholders"
            throw CommandError.usage(
                "the statement has \(placeholders) (?), but \(arguments.count) --param "
                    + "\(arguments.count == 1 ? "was" : "were") given; give one --param for each placeholder")
        }
    }

    /// The value a `--param` binds. With a prefix `text:`, `integer:`, `real:` or `blob:` (hex
    /// digits), the rest as that type, or a usage error when it cannot be one. Otherwise a number
    /// only when the text is a JSON number that reads back as written (an integer exactly as
    /// `String(_:)` writes it; a real with a point or an exponent), so that binding never
    /// changes a value such as `02134` or `+15551234567`; text for anything else.
    static func value(_ text: String) throws -> DatabaseValue {
        if let colon = text.firstIndex(of: ":") {
            let rest = String(text[text.index(after: colon)...])
            func invalid(_ expected: String) -> CommandError {
                .usage("--param \(text): \"\(rest)\" is not \(expected)")
            }
            switch text[..<colon] {
            case "text": return .text(rest)
            case "integer":
                guard let integer = Int64(rest) else { throw invalid("an integer between -2^63 and 2^63 - 1") }
                return .integer(integer)
            case "real":
                guard DatabaseValue.numericAffinity(of: rest) != nil, let real = Double(rest) else {
                    throw invalid("a number")
                }
                return .real(real)
            case "blob":
                guard let bytes = hexadecimalBytes(rest) else {
                    throw invalid("hexadecimal bytes (an even number of the digits 0-9 and A-F)")
                }
                return .blob(bytes)
            default: break
            }
        }
        guard isJSONNumber(text.utf8) else { return .text(text) }
        if let integer = Int64(text) {
            return String(integer) == text ? .integer(integer) : .text(text)
        }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
            let real = Double(text), real.isFinite
        else { return .text(text) }
        return .real(real)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: no `+`, leading zeros, spaces, or bare point.
    private static func isJSONNumber(_ bytes: String.UTF8View) -> Bool {
        var rest = bytes[...]
        func digits() -> Int {
            let count = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let first = rest.first
        let whole = digits()
        guard whole > 0, whole == 1 || first != UInt8(ascii: "0") else { return false }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard digits() > 0 else { return false }
        }
        if let byte = rest.first, byte | 0x20 == UInt8(ascii: "e") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }

    private static func hexadecimalBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexDigit(digits[index]), let low = hexDigit(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// True when the SQL holds nothing but spaces, semicolons and comments.
    static func isBlank(_ sql: String) -> Bool {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == ";" }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let close = rest.utf8Range(of: "*/") else { return true }
                rest = rest[close.upperBound...]
            } else {
                return rest.isEmpty
            }
        }
    }
}
