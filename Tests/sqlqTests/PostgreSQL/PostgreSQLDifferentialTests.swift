#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import SQLite
    import Testing

    /// The same random tables in an SQLite file and on PostgreSQL, `t` with a foreign key `d` to
    /// `u`, and random queries whose JSON output must be the same on both: only operators and
    /// types whose meaning the two share, dotted paths across `d` and facets, and every sort
    /// ending in the unique `id`, so that the order is fully determined.
    ///
    /// `t` also holds the types PostgreSQL compares or prints otherwise than SQLite: doubles at
    /// and around 2^53 (`r`), `real`s (`f`), an enum whose labels are not in text order (`m`, text
    /// on SQLite), a domain over `integer` (`p`) and `numeric` extremes (`n`, shown only: on
    /// SQLite a double where it prints the same number, else its exact digits as text).
    @Suite("sqlq on PostgreSQL and SQLite agree", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLDifferentialTests {
        static let texts = ["apple", "Apple", "APPLE", "banana", "a%b", "a_b", "é", "É", "zeta", "", "x y", "Zeta"]
        static let reals = [-2.5, -1, 0, 0.5, 1.25, 3, 1e6]
        /// Doubles at and around 2^53 and 2^60, and the integers between them that no double equals.
        static let bigReals: [Double] = [
            9_007_199_254_740_992, 9_007_199_254_740_994, 9_007_199_254_740_990, -9_007_199_254_740_992,
            1_152_921_504_606_846_976, 1e16, 0.5,
        ]
        static let bigIntegers = [
            "9007199254740993", "9007199254740991", "-9007199254740993", "1152921504606846977", "9007199254740992",
            "9223372036854775807",
        ]
        /// `real`s that print as the decimal SQLite's double holds.
        static let floats: [Double] = [0.1, 0.5, 1.1, 3.3, -7.25, 16_777_216, 0.001]
        static let labels = ["zed", "mid", "alpha", "Beta"]
        /// `numeric`s, each with what SQLite holds for the same JSON: a number where JSON's
        /// number is the same decimal, else PostgreSQL's exact digits as text.
        static let numerics: [(postgreSQL: String, sqlite: DatabaseValue)] = [
            ("2.50", .real(2.5)), ("1e-400", .text("0." + String(repeating: "0", count: 399) + "1")),
            ("1e400", .text("1" + String(repeating: "0", count: 400))),
            ("123456789012345678901234567890.123", .text("123456789012345678901234567890.123")),
            ("0.30000000000000004", .real(0.300_000_000_000_000_04)), ("-0.1", .real(-0.1)), ("0", .integer(0)),
            ("-1e-320", .real(-1e-320)),
        ]

        /// The six rows of `u`, the parent table that `t.d` refers to: `id`, `name` and `w`.
        static func randomParents(_ random: inout SeededGenerator) -> [[DatabaseValue]] {
            (1...6).map { id in
                let name: DatabaseValue =
                    Int.random(in: 0..<6, using: &random) == 0
                    ? .null : .text(texts.randomElement(using: &random)!)
                let w: DatabaseValue =
                    Int.random(in: 0..<6, using: &random) == 0
                    ? .null : .integer(Int64.random(in: -3...3, using: &random))
                return [.integer(Int64(id)), name, w]
            }
        }

        @Test(
            "200 random filters, sorts, limits, selections and facets, across a foreign key, give the same JSON, half of them under other settings"
        )
        func randomQueries() async throws {
            var random = SeededGenerator(seed: 0x5EED_0F_5A1)
            let parents = Self.randomParents(&random)
            var rows: [[DatabaseValue]] = []
            var sqliteNumerics: [DatabaseValue] = []
            for id in 1...60 {
                let a: DatabaseValue =
                    Int.random(in: 0..<8, using: &random) == 0
                    ? .null : .integer(Int64.random(in: -5...5, using: &random))
                let b: DatabaseValue =
                    Int.random(in: 0..<8, using: &random) == 0
                    ? .null : .real(Self.reals.randomElement(using: &random)!)
                let c: DatabaseValue =
                    Int.random(in: 0..<8, using: &random) == 0
                    ? .null : .text(Self.texts.randomElement(using: &random)!)
                let d: DatabaseValue =
                    Int.random(in: 0..<6, using: &random) == 0
                    ? .null : .integer(Int64.random(in: 1...6, using: &random))
                func maybe(_ value: DatabaseValue) -> DatabaseValue {
                    Int.random(in: 0..<8, using: &random) == 0 ? .null : value
                }
                let r = maybe(.real(Self.bigReals.randomElement(using: &random)!))
                let f = maybe(.real(Self.floats.randomElement(using: &random)!))
                let m = maybe(.text(Self.labels.randomElement(using: &random)!))
                let p = maybe(.integer(Int64.random(in: 1...4, using: &random)))
                let n = Int.random(in: 0..<8, using: &random) == 0 ? nil : Self.numerics.randomElement(using: &random)!
                rows.append([.integer(Int64(id)), a, b, c, d, r, f, m, p, n.map { .text($0.postgreSQL) } ?? .null])
                sqliteNumerics.append(n?.sqlite ?? .null)
            }
            let files = try TemporaryDirectory()
            let path = files.file("differential.sqlite").path
            let sqlite = try Database(path: path)
            try sqlite.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT, w INTEGER)")
            try sqlite.execute(
                """
                CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT, d INTEGER REFERENCES u (id),
                    r REAL, f REAL, m TEXT, p INTEGER, n)
                """)
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE u (id bigint PRIMARY KEY, name text, w bigint)",
                "CREATE TYPE mood AS ENUM ('zed', 'mid', 'alpha', 'Beta')",
                "CREATE DOMAIN posint AS integer CHECK (VALUE > 0)",
                """
                CREATE TABLE t (id bigint PRIMARY KEY, a bigint, b double precision, c text, d bigint REFERENCES u (id),
                    r double precision, f real, m mood, p posint, n numeric)
                """,
            ])
            defer { Task { await fixture.close() } }
            for row in parents {
                try sqlite.execute("INSERT INTO u VALUES (?, ?, ?)", row)
                try await fixture.database.execute("INSERT INTO u VALUES ($1, $2, $3)", row)
            }
            for (row, numeric) in zip(rows, sqliteNumerics) {
                var copy = row
                copy[9] = numeric
                try sqlite.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", copy)
                try await fixture.database.execute(
                    "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", row)
            }
            var nonEmpty = 0
            var (paths, facets) = (0, 0)
            for round in 0..<200 {
                // The second half runs on a database whose settings change how PostgreSQL prints
                // values and reads literals; sqlq's sessions, each new, start with them.
                if round == 100 { try await PostgreSQLSettingsTests.makeOdd(fixture) }
                let arguments = Self.randomArguments(&random)
                let onSQLite = try await TestServer.sqlq(arguments + ["--db", path])
                let onPostgreSQL = try await fixture.run(arguments)
                #expect(onSQLite.status == 0, "round \(round): \(arguments): \(onSQLite.errors)")
                #expect(
                    onPostgreSQL.output == onSQLite.output,
                    "round \(round): \(arguments)\nPostgreSQL: \(onPostgreSQL.errors)")
                if onSQLite.output.count > 3 { nonEmpty += 1 }
                if arguments.contains(where: { $0.contains("d.") }) { paths += 1 }
                if arguments.contains("--facet") { facets += 1 }
            }
            // Enough rounds cross the foreign key and count facets to test them.
            #expect(paths > 40)
            #expect(facets > 40)
            // The filters must select something often enough to test the values.
            #expect(nonEmpty > 100)
            withExtendedLifetime(files) {}
        }

        static func randomArguments(_ random: inout SeededGenerator) -> [String] {
            var arguments = ["query", "t", "--format", Bool.random(using: &random) ? "json" : "ndjson"]
            let count = Int.random(in: 0...2, using: &random)
            if count > 0 {
                let predicates = (0..<count).map { _ in randomPredicate(&random) }
                let joined = predicates.joined(separator: Bool.random(using: &random) ? " and " : " or ")
                arguments += ["--where", Int.random(in: 0..<5, using: &random) == 0 ? "not (\(joined))" : joined]
            }
            var sort: [String] = []
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                sort.append(
                    (Bool.random(using: &random) ? "-" : "")
                        + ["a", "b", "c", "d.name", "d.w", "r", "f", "m", "p"].randomElement(using: &random)!)
            }
            sort.append(Bool.random(using: &random) ? "id" : "-id")
            arguments += ["--sort", sort.joined(separator: ",")]
            if Bool.random(using: &random) { arguments += ["--limit", String(Int.random(in: 0...20, using: &random))] }
            if Int.random(in: 0..<3, using: &random) == 0 {
                arguments += ["--offset", String(Int.random(in: 0...10, using: &random))]
            }
            if Bool.random(using: &random) {
                arguments += [
                    "--columns",
                    (["id"]
                        + ["a", "b", "c", "d.name", "d.w", "r", "f", "m", "p", "n"].filter { _ in
                            Bool.random(using: &random)
                        })
                        .joined(separator: ","),
                ]
            }
            if Int.random(in: 0..<8, using: &random) == 0 {
                arguments.append("--count")
            } else if Bool.random(using: &random) {
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    arguments += [
                        "--facet",
                        ["a", "b", "c", "d", "d.name", "d.w", "r", "f", "m", "p"].randomElement(using: &random)!,
                    ]
                }
                if Bool.random(using: &random) {
                    arguments += ["--facet-size", String(Int.random(in: 1...4, using: &random))]
                }
            }
            return arguments
        }

        /// A random filter on `t`; with `typedColumns` false, on its columns `a` to `d` and the
        /// parent `u` alone, which every table named `t` of these tests has.
        static func randomPredicate(_ random: inout SeededGenerator, typedColumns: Bool = true) -> String {
            let comparison = ["=", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            func text() -> String {
                let value = (texts + ["a", "b", "Z", "é"]).randomElement(using: &random)!
                return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
            }
            func number() -> String {
                Bool.random(using: &random)
                    ? String(Int.random(in: -6...6, using: &random)) : String(reals.randomElement(using: &random)!)
            }
            func bigInteger() -> String { bigIntegers.randomElement(using: &random)! }
            func float() -> String { String(floats.randomElement(using: &random)!) }
            func label() -> String { "'" + labels.randomElement(using: &random)! + "'" }
            switch Int.random(in: 0..<(typedColumns ? 26 : 19), using: &random) {
            case 0: return "a \(comparison) \(Int.random(in: -6...6, using: &random))"
            case 1: return "b \(comparison) \(number())"
            case 2: return "c \(comparison) \(text())"
            case 3: return "a in (\(number()), \(number()), null)"
            case 4: return "c not in (\(text()), \(text()))"
            case 5: return "a between \(number()) and \(number())"
            case 6: return "c between \(text()) and \(text())"
            case 7:
                return ["a", "b", "c"].randomElement(using: &random)!
                    + (Bool.random(using: &random) ? " is null" : " is not null")
            case 8:
                let pattern = ["a%", "A_B", "%E%", "%p%", "_", "é", "É%", "a%b", "x y"].randomElement(using: &random)!
                return "c \(Bool.random(using: &random) ? "not like" : "like") '\(pattern)'"
            case 9: return "c contains '\(["an", "P", "%", "_", "É", " "].randomElement(using: &random)!)'"
            case 10: return "a"
            case 11: return "a \(comparison) b"
            case 12: return "d.name \(comparison) \(text())"
            case 13: return "d.w \(comparison) \(Int.random(in: -3...3, using: &random))"
            case 14:
                return "d.name" + (Bool.random(using: &random) ? " is null" : " is not null")
            case 15: return "not d.w in (\(number()), \(number()))"
            case 16:
                let pattern = ["a%", "%E%", "_", "é"].randomElement(using: &random)!
                return "d.name \(Bool.random(using: &random) ? "not like" : "like") '\(pattern)'"
            case 17: return "d.w between \(number()) and \(number()) or d.name = c"
            case 18: return "b \(comparison) '\(Int.random(in: -3...3, using: &random))'"
            case 19: return "r \(comparison) \(bigInteger())"
            case 20:
                return Bool.random(using: &random)
                    ? "r between \(bigInteger()) and \(bigInteger())" : "r in (\(bigInteger()), \(bigInteger()))"
            case 21: return "f \(comparison) \(float())"
            case 22:
                return Bool.random(using: &random)
                    ? "f in (\(float()), \(float()))" : "f between \(float()) and \(float())"
            case 23:
                return Bool.random(using: &random)
                    ? "m \(comparison) \(label())" : "m between \(label()) and \(label())"
            case 24: return "p \(comparison) \(Int.random(in: -1...5, using: &random))"
            default: return Bool.random(using: &random) ? "n is null" : "p between \(number()) and \(number())"
            }
        }
    }
#endif
