import Foundation
import PostgreSQL
import PostgreSQLTestServer
import SQLite
import Testing

@Suite(.postgreSQLInstalled)
struct TypeMappingTests {
    @Test func valuesRoundTripThroughTheirColumns() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute(
                """
                CREATE TABLE things(
                    id BIGSERIAL PRIMARY KEY, small SMALLINT, count INTEGER, big BIGINT, ratio DOUBLE PRECISION,
                    single REAL, price NUMERIC(10, 2), title TEXT, code VARCHAR(8), letter CHAR(3), data BYTEA,
                    done BOOLEAN, note TEXT
                )
                """)
            let blob: [UInt8] = [0, 1, 0x7f, 0x80, 0xff]
            let inserted = try await db.execute(
                """
                INSERT INTO things(small, count, big, ratio, single, price, title, code, letter, data, done, note)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                """,
                [7, -42, .integer(.max), 0.1, 1.5, 12.5, "crème brûlée 🍮", "abc", "x", .blob(blob), 1, .null])
            #expect(inserted == 1)

            let row = try #require(
                try await db.fetchOne(
                    "SELECT small, count, big, ratio, single, price, title, code, letter, data, done, note FROM things")
            )
            #expect(
                row.columnNames == [
                    "small", "count", "big", "ratio", "single", "price", "title", "code", "letter", "data", "done",
                    "note",
                ])
            #expect(
                row.values == [
                    .integer(7), .integer(-42), .integer(.max), .real(0.1), .real(1.5), .real(12.5),
                    .text("crème brûlée 🍮"), .text("abc"), .text("x  "), .blob(blob), .integer(1), .null,
                ])
            let done: Bool = try row["done"]
            #expect(done)
            let title: String = try row["title"]
            #expect(title == "crème brûlée 🍮")
            let note: String? = try row["note"]
            #expect(note == nil)
        }
    }

    @Test func falseIsZeroAndAnIntegerArgumentBindsToABoolean() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, done BOOLEAN NOT NULL)")
            try await db.execute("INSERT INTO items VALUES (1, $1), (2, $2)", [0, 1])
            let rows = try await db.fetchAll("SELECT done FROM items WHERE done = $1 OR id = 1 ORDER BY id", [1])
            #expect(rows.map { $0.values } == [[.integer(0)], [.integer(1)]])
        }
    }

    @Test func datesTimesUUIDsAndJSONReadAsPostgreSQLPrintsThem() async throws {
        try await TestServer.withDatabase { db in
            let expressions = [
                "TIMESTAMP '2024-03-01 12:30:00.25'", "TIMESTAMP '1999-12-31 23:59:59'",
                "TIMESTAMPTZ '2024-03-01 12:30:00+02'", "DATE '2024-02-29'", "DATE '0044-03-15 BC'",
                "TIME '08:05:03.000001'", "'infinity'::timestamp",
                "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'{\"a\": [1, 2]}'::json", "'{\"a\": [1, 2]}'::jsonb",
            ]
            for expression in expressions {
                let row = try #require(
                    try await db.fetchOne("SELECT \(expression) AS value, (\(expression))::text AS text"))
                let text: String = try row["text"]
                #expect(row.value(named: "value") == .text(text), "\(expression)")
            }
        }
    }

    /// A `numeric` is never rounded: a real when the double prints back as the same number, an
    /// integer when it is whole and fits 64 bits, its exact text otherwise.
    @Test func numericsKeepEveryDigit() async throws {
        try await TestServer.withDatabase { db in
            let cases: [(String, DatabaseValue)] = [
                ("12.50", .real(12.5)), ("0.1", .real(0.1)), ("-0.001", .real(-0.001)), ("0", .real(0)),
                ("1e300", .real(1e300)), ("'Infinity'", .real(.infinity)), ("'-Infinity'", .real(-.infinity)),
                ("'NaN'", .null), ("123.000", .real(123)),
                ("9007199254740993", .integer(9_007_199_254_740_993)),
                ("-9223372036854775808.00", .integer(.min)),
                ("12345678901234567890.125", .text("12345678901234567890.125")),
                ("0.10000000000000000001", .text("0.10000000000000000001")),
                ("9223372036854775808", .text("9223372036854775808")),
            ]
            for (literal, expected) in cases {
                let row = try #require(try await db.fetchOne("SELECT \(literal)::numeric AS value"))
                #expect(row.value(named: "value") == expected, "\(literal)")
            }
            // The sum of two large bigints is a numeric: exact, as SQLite's integer sum is.
            let sum = try #require(
                try await db.fetchOne(
                    "SELECT sum(v) AS total FROM (VALUES (4611686018427387904::int8), (1::int8)) t(v)"))
            #expect(sum.value(named: "total") == .integer(4_611_686_018_427_387_905))
            // Rounding is refused, not done silently: `String` reads the exact text, `Double` throws.
            let long = try #require(try await db.fetchOne("SELECT 0.10000000000000000001::numeric AS value"))
            let exact: String = try long["value"]
            #expect(exact == "0.10000000000000000001")
            #expect(throws: RowDecodingError.self) { let _: Double = try long["value"] }
        }
    }

    @Test func aTypeWithoutAReaderNamesTheCastThatFixesIt() async throws {
        try await TestServer.withDatabase { db in
            let error = await #expect(throws: PostgreSQLError.self) {
                try await db.fetchAll("SELECT '1 day'::interval AS span")
            }
            #expect(error?.kind == .unsupportedType)
            #expect(error?.description.contains("span::text") == true)
            let row = try await db.fetchOne("SELECT '1 day'::interval::text AS span")
            #expect(row?.value(named: "span") == .text("1 day"))
        }
    }

    @Test func argumentsAreBoundNeverSpliced() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE notes(body TEXT)")
            let hostile = "'); DROP TABLE notes; --"
            try await db.execute("INSERT INTO notes VALUES ($1)", [.text(hostile)])
            let rows = try await db.fetchAll("SELECT body FROM notes WHERE body = $1", [.text(hostile)])
            #expect(rows.map { $0.values } == [[.text(hostile)]])
        }
    }

    /// `FetchableRow` decodes from a `BorrowedRow`, which only an SQLite statement produces; the
    /// owned `Row`s read here decode the same values through the same typed subscripts.
    @Test func rowsDecodeTypedValuesByIndexAndName() async throws {
        try await TestServer.withDatabase { db in
            let row = try #require(
                try await db.fetchOne("SELECT 3::int8 AS id, 'milk' AS title, true AS done, NULL::text AS note"))
            let id: Int64 = try row[0]
            let title: String = try row["title"]
            let done: Bool = try row["done"]
            let note: String? = try row["note"]
            #expect(id == 3 && title == "milk" && done && note == nil)
            #expect(throws: RowDecodingError.self) { let _: Int = try row["title"] }
        }
    }
}

@Suite(.postgreSQLInstalled)
struct NaNBindingTests {
    /// SQLite binds NaN as NULL; PostgreSQL would store it (and find it equal to itself). Bound
    /// as NULL on both, a request gives the same rows and a NOT NULL column refuses it on both.
    @Test func aNaNBindsAsNULLAsOnSQLite() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute(
                "CREATE TABLE readings(id INTEGER PRIMARY KEY, value DOUBLE PRECISION NOT NULL, maybe DOUBLE PRECISION)"
            )
            let violation = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO readings VALUES (1, $1, NULL)", [.real(.nan)])
            }
            #expect(violation?.kind == .notNull)
            #expect(violation?.description.contains("NaN is stored as NULL") == true)
            try await db.execute("INSERT INTO readings VALUES (1, 1.5, $1)", [.real(.nan)])
            #expect(try await db.fetchAll("SELECT maybe FROM readings").first?.value(at: 0) == .null)
            #expect(try await Table("readings").filter(Column("value") != Double.nan).fetchCount(db) == 0)
        }
    }
}

@Suite(.postgreSQLInstalled)
struct UnstorableDateTests {
    private struct Event: PersistableRecord, Encodable, Sendable {
        static let tableName = "events"
        var id: Int64
        var at: Date
    }

    /// A date past year 9999 throws the same typed error on PostgreSQL as on SQLite, before
    /// anything reaches the server.
    @Test func aDateOutsideTheYears0000Through9999ThrowsBeforeReachingTheServer() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE events(id BIGINT PRIMARY KEY, at TEXT NOT NULL)")
            for interval in [Double.infinity, .nan, 1e14, 253_402_300_800, -1e11] {
                let date = Date(timeIntervalSince1970: interval)
                var event = Event(id: 1, at: date)
                await #expect(throws: ValueConversionError.self) { try await event.insert(db) }
                await #expect(throws: ValueConversionError.self) {
                    try await Table("events").filter(Column("at") < date).fetchAll(db)
                }
            }
            #expect(try await Table("events").fetchCount(db) == 0)
            // timestamptz has no year 0000, which SQLite's text holds: the server's typed error.
            try await db.execute("CREATE TABLE stamps(at TIMESTAMPTZ)")
            let yearZero = try DatabaseValue(Date(timeIntervalSince1970: -62_167_219_200))
            let refused = await #expect(throws: PostgreSQLError.self) {
                try await db.execute("INSERT INTO stamps VALUES ($1)", [yearZero])
            }
            #expect(refused?.sqlState == "22008")
        }
    }
}
