#if HTTP
    import Foundation
    import SQLite
    import Testing

    @testable import sqlq

    /// Page tokens and the keyset condition, in process: their encoding, and a randomized
    /// differential of walking every page against one unpaginated query.
    @Suite("Page tokens", .onProcessThreads)
    struct PageTokenTests {
        @Test("A keyset token holds values of every type exactly, floats to the bit")
        func roundTrip() throws {
            let values: [DatabaseValue] = [
                .null, .integer(.min), .integer(.max), .integer(0), .real(-0.0), .real(.infinity),
                .real(-.infinity), .real(.leastNonzeroMagnitude), .real(0.1), .text(""), .text("a\u{0}b é 🙂"),
                .blob([]), .blob([0, 255, 1]),
            ]
            let token = PageToken.keyset(fingerprint: 0xDEAD_BEEF, values: values)
            let text = token.text
            #expect(text.hasPrefix("k"))
            #expect(text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 < 128 })
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            let decoded = try PageToken(text)
            guard case .keyset(let fingerprint, let read) = decoded else {
                Issue.record("decoded \(decoded)")
                return
            }
            #expect(fingerprint == 0xDEAD_BEEF)
            #expect(read == values)
            for (value, read) in zip(values, read) {
                if case .real(let number) = value, case .real(let back) = read {
                    #expect(number.bitPattern == back.bitPattern)
                }
            }
            #expect(try PageToken("o50") == .offset(50))
            #expect(PageToken.offset(50).text == "o50")
        }

        @Test("A token that is malformed, damaged, too long or too full is refused with a message")
        func badTokens() throws {
            let valid = PageToken.keyset(fingerprint: 7, values: [.text("abc"), .integer(3)]).text
            var damaged = Array(valid)
            damaged[5] = damaged[5] == "A" ? "B" : "A"
            let cases: [(String, String)] = [
                ("x", "is not a page token of this server"),
                ("o", "is not a page token of this server"),
                ("o-1", "is not a page token of this server"),
                ("o+1", "is not a page token of this server"),
                ("o99999999999999999999", "is not a page token of this server"),
                ("k", "is not a page token of this server"),
                ("k!!!!", "is not a page token of this server"),
                ("kA", "is not a page token of this server"),
                (String(damaged), "is a damaged page token"),
                (valid + "AA", "is a damaged page token"),
                ("k" + String(repeating: "A", count: 9_000), "is too long to be a page token"),
                (
                    PageToken.keyset(fingerprint: 7, values: Array(repeating: .null, count: 17)).text,
                    "holds 17 values; a page token holds at most 16"
                ),
                // SQLite reads a NaN as NULL: no row holds one.
                (PageToken.keyset(fingerprint: 7, values: [.real(.nan)]).text, "is not a page token of this server"),
            ]
            for (text, message) in cases {
                #expect {
                    try PageToken(text)
                } throws: { error in
                    let error = try #require(error as? ServeError)
                    return error.status == .badRequest && error.message.contains(message)
                }
            }
        }

        @Test("The condition of mixed directions is the OR of prefixes, NULL placed as SQLite places it")
        func condition() throws {
            let db = try Database()
            try db.execute("CREATE TABLE t(a TEXT COLLATE NOCASE, b REAL)")
            let request = try TableViewRequest(
                table: "t", parameters: ViewParameters([("sort", "a,-b")]), db: db, timeLimit: .seconds(5))
            let order = try #require(request.order)
            #expect(
                request.rows.sql
                    == #"SELECT *, "a", "b", "rowid" FROM "t" ORDER BY "a", "b" DESC, "rowid" ASC LIMIT ? OFFSET ?"#)
            let after = order.condition(after: [.text("x"), .real(1), .integer(3)])
            #expect(
                after.sql
                    == #"(("a" > ?) OR ("a" IS ? AND ("b" < ? OR "b" IS NULL)) OR ("a" IS ? AND "b" IS ? AND "rowid" > ?))"#
            )
            let nulls = order.condition(after: [.null, .null, .integer(3)])
            #expect(nulls.sql == #"(("a" IS NOT NULL) OR ("a" IS ? AND "b" IS ? AND "rowid" > ?))"#)
        }

        // MARK: Differential

        /// The columns the random tables have: every affinity, a NOCASE collation.
        static let columns = [
            ("a", "INTEGER"), ("b", "TEXT"), ("c", "REAL"), ("d", ""), ("e", "TEXT COLLATE NOCASE"), ("f", "NUMERIC"),
        ]
        static let filters = [nil, "a >= 0", "b = 'a'", "c < 1", "not e = 'b'"]
        /// A key longer than a token holds: its page's next token is an offset, counted.
        static let longText = String(repeating: "z", count: PageToken.maximumLength)

        static func randomValue(_ random: inout SeededGenerator) -> DatabaseValue {
            let pool: [DatabaseValue] = [
                .null, .null, .integer(-2), .integer(0), .integer(1), .integer(3), .integer(3), .real(-0.0), .real(0.0),
                .real(1.5), .real(-1.5), .real(2.0), .real(1e300), .text("a"), .text("A"), .text("b"), .text("B"),
                .text("ab"), .text(""), .text("é"), .text("3"), .blob([0]), .blob([]), .blob([255, 1]),
            ]
            if Int.random(in: 0..<60, using: &random) == 0 { return .text(longText) }
            return pool[Int.random(in: 0..<pool.count, using: &random)]
        }

        /// A random table `t` in `db`: a rowid table with or without an INTEGER PRIMARY KEY, or
        /// a WITHOUT ROWID table keyed by NOCASE text. `n` numbers the rows as inserted. Returns
        /// the tiebreaker as the reference query writes it.
        static func makeTable(_ db: Database, _ random: inout SeededGenerator) throws -> String {
            let kind = Int.random(in: 0..<3, using: &random)
            let columns = Self.columns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            switch kind {
            case 0: try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, \(columns))")
            case 1: try db.execute("CREATE TABLE t(n INTEGER, \(columns))")
            default:
                try db.execute("CREATE TABLE t(k TEXT COLLATE NOCASE PRIMARY KEY, n INTEGER, \(columns)) WITHOUT ROWID")
            }
            let count = Int.random(in: 0...40, using: &random)
            for n in 0..<count {
                var values: [DatabaseValue] = [.integer(Int64(n))]
                values += Self.columns.map { _ in randomValue(&random) }
                if kind == 2 {
                    // Unique under NOCASE, in random case.
                    let key = "k\(n)"
                    values.insert(.text(Bool.random(using: &random) ? key.uppercased() : key), at: 0)
                    try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
                } else {
                    try db.execute(
                        "INSERT INTO t(n, a, b, c, d, e, f) VALUES (?, ?, ?, ?, ?, ?, ?)", values)
                }
            }
            return ["\"id\"", "rowid", "\"k\" COLLATE \"NOCASE\""][kind]
        }

        /// A random view: 1 to 3 sort keys with directions, a filter or none, a page size.
        static func randomView(_ random: inout SeededGenerator) -> (sort: [(String, Bool)], filter: String?, size: Int)
        {
            let count = Int.random(in: 1...3, using: &random)
            let sort = (0..<count).map { _ in
                (Self.columns[Int.random(in: 0..<Self.columns.count, using: &random)].0, Bool.random(using: &random))
            }
            return (
                sort, filters[Int.random(in: 0..<filters.count, using: &random)], Int.random(in: 1...7, using: &random)
            )
        }

        static func parameters(_ view: (sort: [(String, Bool)], filter: String?, size: Int)) throws -> ViewParameters {
            var pairs = [("sort", view.sort.map { ($1 ? "-" : "") + $0 }.joined(separator: ","))]
            if let filter = view.filter { pairs.append(("where", filter)) }
            pairs.append(("size", String(view.size)))
            return try ViewParameters(pairs)
        }

        /// The rows of the view in one query: the same filter, the ORDER BY written here, with
        /// the tiebreaker.
        static func reference(
            _ db: Database, _ view: (sort: [(String, Bool)], filter: String?, size: Int), tiebreaker: String,
            filter: SQLExpression?
        ) throws -> [[DatabaseValue]] {
            let orderBy = view.sort.map { "\"\($0)\"" + ($1 ? " DESC" : " ASC") } + [tiebreaker]
            let sql =
                "SELECT * FROM t" + (filter.map { " WHERE " + $0.sql } ?? "") + " ORDER BY "
                + orderBy.joined(separator: ", ")
            return try db.fetchAll(sql, filter?.arguments ?? []).map { row in (0..<row.count).map(row.value(at:)) }
        }

        /// Rows as a failure prints them, the long text elided.
        static func shortened(_ rows: [[DatabaseValue]]) -> [[DatabaseValue]] {
            rows.map { $0.map { $0 == .text(longText) ? .text("z…") : $0 } }
        }

        /// Every page of the view, each fetched as the server fetches it, following `next`.
        static func walk(_ db: Database, _ parameters: ViewParameters, table: String = "t", limit: Int) throws -> (
            rows: [[DatabaseValue]], tokens: [String]
        ) {
            var parameters = parameters
            var rows: [[DatabaseValue]] = []
            var tokens: [String] = []
            for _ in 0...limit {
                let page = try TableViewRequest(table: table, parameters: parameters, db: db, timeLimit: .seconds(10))
                    .fetch(db)
                rows += page.rows
                guard let next = page.next else { return (rows, tokens) }
                tokens.append(next)
                parameters.after = next
            }
            throw ServeTestError("the walk did not end within \(limit + 1) pages")
        }

        @Test("Walking every page through next gives the rows of one query, in its order", arguments: 0..<4)
        func differential(batch: Int) throws {
            var keysetTokens = 0
            var offsetTokens = 0
            for seed in UInt64(batch * 30)..<UInt64(batch * 30 + 30) {
                var random = SeededGenerator(seed: seed)
                let db = try Database()
                let tiebreaker = try Self.makeTable(db, &random)
                for _ in 0..<4 {
                    let view = Self.randomView(&random)
                    let parameters = try Self.parameters(view)
                    let first = try TableViewRequest(
                        table: "t", parameters: parameters, db: db, timeLimit: .seconds(10))
                    #expect(first.order != nil)
                    let expected = try Self.reference(db, view, tiebreaker: tiebreaker, filter: first.query.filter)
                    let (rows, tokens) = try Self.walk(db, parameters, limit: 41)
                    keysetTokens += tokens.filter { $0.hasPrefix("k") }.count
                    offsetTokens += tokens.filter { $0.hasPrefix("o") }.count
                    // Compared first, so that a failure prints the rows shortened.
                    let same = rows == expected
                    #expect(
                        same,
                        """
                        seed \(seed), sort \(view.sort), where \(view.filter ?? "-"), size \(view.size): \
                        \(Self.shortened(rows)) instead of \(Self.shortened(expected))
                        """)
                    #expect(tokens.count == max(0, (expected.count - 1) / view.size))
                }
            }
            #expect(keysetTokens > 50)
            // Pages that ended on a key too long for a token, continued by offset.
            #expect(offsetTokens > 0)
        }

        @Test("Views, foreign-key paths and a search's rank page by offset, and say so to a keyset token")
        func offsetViews() throws {
            let db = try Database()
            try db.executeScript(
                """
                CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE items(id INTEGER PRIMARY KEY, list_id INTEGER REFERENCES lists(id), title TEXT);
                CREATE VIEW named AS SELECT title FROM items;
                CREATE VIRTUAL TABLE items_search USING fts5(title, content='items', content_rowid='id');
                INSERT INTO lists VALUES (1, 'b'), (2, 'a');
                INSERT INTO items VALUES (1, 1, 'x one'), (2, 2, 'x two x'), (3, 1, 'x three');
                INSERT INTO items_search(items_search) VALUES ('rebuild');
                """)
            let keyset = PageToken.keyset(fingerprint: 1, values: [.integer(1)]).text
            for (table, view, reason) in [
                ("named", [("sort", "title")], "it has no rowid or primary key to break ties"),
                ("items", [("sort", "list_id.name")], "it sorts by a foreign-key path"),
                ("items", [("search", "x")], "it sorts a search by rank"),
            ] {
                var parameters = try ViewParameters(view + [("size", "2")])
                let request = try TableViewRequest(table: table, parameters: parameters, db: db, timeLimit: .seconds(5))
                #expect(request.order == nil)
                #expect(try request.fetch(db).next == "o2")
                parameters.after = keyset
                #expect {
                    try TableViewRequest(table: table, parameters: parameters, db: db, timeLimit: .seconds(5))
                } throws: { error in
                    (error as? ServeError)?.message.contains("this view pages by offset: " + reason) == true
                }
            }
            // A search sorted by a column pages by keyset.
            let sorted = try ViewParameters([("search", "x"), ("sort", "-title"), ("size", "1")])
            let request = try TableViewRequest(table: "items", parameters: sorted, db: db, timeLimit: .seconds(5))
            #expect(request.order != nil)
            let (rows, tokens) = try Self.walk(db, sorted, table: "items", limit: 4)
            #expect(rows.map { $0[2] } == [.text("x two x"), .text("x three"), .text("x one")])
            #expect(tokens.count == 2 && tokens.allSatisfy { $0.hasPrefix("k") })
        }
    }
#endif
