import SQLite

/// A full-text index the schema declares: an FTS5 table, and the table its `content=` option
/// names. `--search` and `search-index --rebuild` find it from the table they are given.
struct SearchIndex: Hashable {
    /// The FTS5 table, as the schema spells it.
    let name: String
    /// The table that `content=` names, as the option spells it; nil when the index keeps its
    /// own copy of the text, or none (`content=''`).
    let contentTable: String?
    /// `content_rowid=`: the content table's column that holds each row's rowid in the index.
    let contentRowID: String

    /// Every FTS5 table of the database, in the byte order of their names.
    static func all(in db: Database) throws -> [SearchIndex] {
        try db.fetchAll(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        ).compactMap { row in SearchIndex(name: try row[0], sql: try row[1]) }
    }

    /// The index that searches `table` (named as the schema spells it): the table itself when it
    /// is an FTS5 table, else the first by name of the FTS5 tables whose `content=` names it.
    static func find(for table: String, in db: Database) throws -> SearchIndex? {
        let indexes = try all(in: db)
        return indexes.first { $0.name.sqliteNameMatches(table) }
            ?? indexes.first { $0.contentTable?.sqliteNameMatches(table) == true }
    }

    /// The search of `table`'s rows, which this index covers: the index's own, or its content
    /// table's.
    func search(_ pattern: FTS5Pattern, of table: String) -> FullTextSearch {
        name.sqliteNameMatches(table)
            ? FullTextSearch(pattern, index: name)
            : FullTextSearch(pattern, index: name, contentTable: table, contentRowID: contentRowID)
    }

    /// The triggers of the database whose names are those `search-index` gives this index's
    /// (`NAME_ai`, `NAME_ad`, `NAME_au`), with their statements as the schema stores them.
    func triggers(in db: Database) throws -> [(name: String, sql: String)] {
        let suffixes = ["_ai", "_ad", "_au"]
        return try db.fetchAll("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").compactMap { row in
            let triggerName: String = try row[0]
            guard suffixes.contains(where: { triggerName.sqliteNameMatches(name + $0) }) else { return nil }
            return (triggerName, try row[1] as String? ?? "")
        }
    }

    /// Throws when a search of this external-content index would answer wrongly: when its
    /// `content_rowid` is a rowid name that a column of the table hides, or the triggers that
    /// `search-index` made to keep it current are missing or differ from what it makes (it may
    /// then miss rows, or find rows by words they no longer have). An index with none of those
    /// triggers is taken as kept current by whoever made it (a migration, or an application that
    /// rebuilds it).
    func checkSearchable(in db: Database, databaseArguments: [String]) throws {
        guard let contentTable else { return }
        let columns = try db.fetchAll("SELECT name, type, pk FROM pragma_table_xinfo(?)", [.text(contentTable)])
        if ["rowid", "oid", "_rowid_"].contains(where: contentRowID.sqliteNameMatches),
            let hiding = try columns.first(where: { try ($0[0] as String).sqliteNameMatches(contentRowID) }),
            try Self.rowIDAlias(of: contentTable, in: db)?.sqliteNameMatches(try hiding[0] as String) != true
        {
            let indexed = try db.columnNames(in: name)
            let command = (["sqlq", "search-index", contentTable] + indexed + databaseArguments).map(Self.shellWord)
            throw CommandError.failure(
                "--search: the full-text index \"\(name)\" of \"\(contentTable)\" takes its rowids from "
                    + "\"\(try hiding[0] as String)\", a column that hides the table's rowids, so its answers would be "
                    + "wrong; drop it and its triggers \(name)_ai, \(name)_ad and \(name)_au, then create it again with:\n  "
                    + command.joined(separator: " "))
        }
        let existing = try triggers(in: db)
        guard !existing.isEmpty else { return }
        let expected = FullTextIndex(
            name, table: contentTable, columns: try db.columnNames(in: name), contentRowID: contentRowID
        ).triggers
        var missing: [String] = []
        var different: [String] = []
        for trigger in expected {
            if let found = existing.first(where: { $0.name.sqliteNameMatches(trigger.name) }) {
                if !Self.sameStatement(found.sql, trigger.sql) { different.append(found.name) }
            } else {
                missing.append(trigger.name)
            }
        }
        guard !missing.isEmpty || !different.isEmpty else { return }
        var problems: [String] = []
        func listed(_ names: [String]) -> String {
            (names.count == 1 ? "trigger " : "triggers ") + names.joined(separator: ", ")
        }
        if !missing.isEmpty { problems.append("lacks its \(listed(missing))") }
        if !different.isEmpty { problems.append("has its \(listed(different)) changed from what search-index makes") }
        let command = (["sqlq", "search-index", contentTable, "--rebuild"] + databaseArguments).map(Self.shellWord)
        throw CommandError.failure(
            "--search: the full-text index \"\(name)\" of \"\(contentTable)\" \(problems.joined(separator: " and ")), so it may "
                + "miss rows or find rows by words they no longer have; restore its triggers and refill it with:\n  "
                + command.joined(separator: " "))
    }

    /// The table's rowid alias: its `INTEGER PRIMARY KEY` column, unless declared `DESC`, which
    /// SQLite makes an ordinary column with a unique index (only an alias has no index for its key).
    static func rowIDAlias(of table: String, in db: Database) throws -> String? {
        let keys = try db.fetchAll("SELECT name, type FROM pragma_table_xinfo(?) WHERE pk > 0", [.text(table)])
        guard keys.count == 1, try (keys[0][1] as String).sqliteNameMatches("INTEGER") else { return nil }
        let keyIndexes = try db.fetchOne(
            Int.self, "SELECT count(*) FROM pragma_index_list(?) WHERE origin = 'pk'", [.text(table)])
        return keyIndexes == 0 ? try keys[0][0] : nil
    }

    /// Whether two statements are the same but for the spaces between their words.
    static func sameStatement(_ a: String, _ b: String) -> Bool {
        func words(_ sql: String) -> [Substring] { sql.split(whereSeparator: \.isWhitespace) }
        return words(a) == words(b)
    }

    /// The usage error for a table that has no index to search: it names the `search-index`
    /// command that creates one, with the table's text columns and `databaseArguments`.
    static func missing(
        _ table: TableSchema, purpose: String, databaseArguments: [String]
    ) -> CommandError {
        var columns = table.columns.filter { $0.affinity == .text }.map(\.name)
        if columns.isEmpty { columns = ["COLUMN..."] }
        let command = (["sqlq", "search-index", table.name] + columns + databaseArguments).map(shellWord)
        return .usage(
            "\(purpose)\"\(table.name)\" has no full-text index (an FTS5 table, or one whose content= is "
                + "\"\(table.name)\"); create one with:\n  " + command.joined(separator: " "))
    }

    /// `word` as a shell reads it back: as it is when it holds only characters that the shell
    /// keeps, else in single quotes.
    static func shellWord(_ word: String) -> String {
        let safe =
            !word.isEmpty
            && word.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "_-./:=@%+,".utf8.contains(byte)
                }
            }
        // By bytes: a quote followed by a combining mark is one `Character`.
        return safe
            ? word
            : "'"
                + String(
                    decoding: word.utf8.flatMap { $0 == UInt8(ascii: "'") ? Array(#"'\''"#.utf8) : [$0] }, as: UTF8.self
                ) + "'"
    }

    init(name: String, contentTable: String?, contentRowID: String) {
        self.name = name
        self.contentTable = contentTable
        self.contentRowID = contentRowID
    }

    /// The index that `sql`, a `CREATE VIRTUAL TABLE` statement of the schema, declares; nil
    /// when it is no FTS5 table.
    init?(name: String, sql: String) {
        guard let (module, arguments) = Self.moduleArguments(Array(sql.utf8)), module.sqliteNameMatches("fts5")
        else { return nil }
        var contentTable: String?
        var contentRowID = "rowid"
        for argument in arguments {
            guard let (key, value) = Self.option(Array(argument.utf8)) else { continue }
            // FTS5 takes any prefix of an option's name, trying them in this order.
            let option = ["prefix", "tokenize", "content", "content_rowid"].first { option in
                key.utf8.count <= option.utf8.count && option.utf8.prefix(key.utf8.count).elementsEqual(key.utf8)
            }
            switch option {
            case "content": contentTable = value.isEmpty ? nil : value
            case "content_rowid": contentRowID = value
            default: break
            }
        }
        self.init(name: name, contentTable: contentTable, contentRowID: contentRowID)
    }

    /// The module of a `CREATE VIRTUAL TABLE` statement and its arguments, split as SQLite splits
    /// them: at the commas outside parentheses, quotes and comments, each argument's text from
    /// its first token to its last.
    static func moduleArguments(_ sql: [UInt8]) -> (module: String, arguments: [String])? {
        var tokens = SQLTokens(bytes: sql)
        while let token = tokens.next() {
            if token.kind == .word, token.text(sql).sqliteNameMatches("using") { break }
        }
        guard let module = tokens.next(), module.kind == .word || module.kind == .quoted else { return nil }
        let name = module.kind == .quoted ? dequoted(sql[module.range]) : module.text(sql)
        guard let open = tokens.next() else { return (name, []) }
        guard open.kind == .punctuation(UInt8(ascii: "(")) else { return nil }
        var arguments: [String] = []
        var argument: Range<Int>?
        var depth = 0
        while let token = tokens.next() {
            switch token.kind {
            case .punctuation(UInt8(ascii: ",")) where depth == 0, .punctuation(UInt8(ascii: ")")) where depth == 0:
                arguments.append(argument.map { String(decoding: sql[$0], as: UTF8.self) } ?? "")
                if token.kind == .punctuation(UInt8(ascii: ")")) { return (name, arguments) }
                argument = nil
                continue
            case .punctuation(UInt8(ascii: "(")): depth += 1
            case .punctuation(UInt8(ascii: ")")): depth -= 1
            default: break
            }
            argument = (argument?.lowerBound ?? token.range.lowerBound)..<token.range.upperBound
        }
        return nil
    }

    /// An argument of `fts5(…)` that sets an option, `key = value`, read as FTS5 reads it: the key
    /// a bare word, lowercased; the value a bare word or quoted, dequoted; nil for a column.
    static func option(_ argument: [UInt8]) -> (key: String, value: String)? {
        var index = argument.startIndex
        func skipSpaces() {
            while index < argument.endIndex, argument[index] == UInt8(ascii: " ") { index += 1 }
        }
        func bareWord() -> String {
            let start = index
            while index < argument.endIndex, isBareWord(argument[index]) { index += 1 }
            return String(decoding: argument[start..<index], as: UTF8.self)
        }
        let key = bareWord()
        skipSpaces()
        guard !key.isEmpty, index < argument.endIndex, argument[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        skipSpaces()
        let value =
            index < argument.endIndex && "'\"`[".utf8.contains(argument[index])
            ? dequoted(argument[index...]) : bareWord()
        return (key.sqliteFolded, value)
    }

    /// FTS5's bare-word characters: ASCII letters, digits and `_`, and every byte of a non-ASCII
    /// character.
    private static func isBareWord(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || (byte | 32) &- UInt8(ascii: "a") < 26
            || byte &- UInt8(ascii: "0") < 10
    }

    /// The text of the quoted word `bytes` starts with, as FTS5 dequotes it: between `'`, `"`,
    /// `` ` `` or `[` and `]`, with the closing quote doubled inside.
    private static func dequoted(_ bytes: ArraySlice<UInt8>) -> String {
        guard let open = bytes.first else { return "" }
        let close = open == UInt8(ascii: "[") ? UInt8(ascii: "]") : open
        var text: [UInt8] = []
        var index = bytes.startIndex + 1
        while index < bytes.endIndex {
            if bytes[index] == close {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == close else { break }
                index += 1
            }
            text.append(bytes[index])
            index += 1
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The tokens of SQL text, as far as splitting a statement needs them: words, quoted names and
/// strings, and single punctuation characters; spaces and comments skipped.
private struct SQLTokens {
    enum Kind: Equatable {
        case word
        case quoted
        case punctuation(UInt8)
    }

    struct Token {
        let kind: Kind
        let range: Range<Int>

        func text(_ sql: [UInt8]) -> String { String(decoding: sql[range], as: UTF8.self) }
    }

    let bytes: [UInt8]
    var index = 0

    mutating func next() -> Token? {
        skipSpacesAndComments()
        guard index < bytes.count else { return nil }
        let start = index
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
            let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
            while index < bytes.count {
                index += 1
                if bytes[index - 1] == close {
                    // A doubled quote is one quote inside the text; `]` has no escape.
                    guard close != UInt8(ascii: "]"), index < bytes.count, bytes[index] == close else { break }
                    index += 1
                }
            }
            return Token(kind: .quoted, range: start..<index)
        default:
            guard Self.isWordByte(byte) else { return Token(kind: .punctuation(byte), range: start..<index) }
            while index < bytes.count, Self.isWordByte(bytes[index]) { index += 1 }
            return Token(kind: .word, range: start..<index)
        }
    }

    private mutating func skipSpacesAndComments() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || (byte >= 9 && byte <= 13) {
                index += 1
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index = min(index + 2, bytes.count)
            } else {
                return
            }
        }
    }

    /// Letters, digits, `_`, `$` and non-ASCII bytes, as SQLite's tokenizer reads identifiers.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte | 32) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
    }
}
