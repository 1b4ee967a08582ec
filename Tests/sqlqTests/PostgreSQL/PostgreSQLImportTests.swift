#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import SQLite
    import Testing

    @Suite("sqlq import on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLImportTests {
        static let table = """
            CREATE TABLE t (
                id bigint PRIMARY KEY, name text NOT NULL, code character(3), n integer, price numeric(40, 10),
                ratio double precision, done boolean, data jsonb)
            """

        /// Texts a naive import would break or run.
        static let hostile = [
            "O'Brien", "\"quoted\"", "'; DROP TABLE t; --", "line\nbreak", "cr\r\nlf", "tab\there", "back\\slash",
            "emoji 🎉 and ünïcödé", "$1::int", "", "Robert'); DELETE FROM t; --",
        ]

        /// Every row of `t` as PostgreSQL's text forms, NULL as nil.
        static func rows(
            _ fixture: PostgreSQLFixture, _ columns: String = "id, name, code, n, price, ratio, done, data"
        )
            async throws -> [[String?]]
        {
            let selected = columns.split(separator: ",").map { "\($0.trimmingCharacters(in: .whitespaces))::text" }
            return try await fixture.database.fetchAll(
                "SELECT \(selected.joined(separator: ", ")) FROM t ORDER BY t.id"
            ).map { row in
                row.values.map { value in
                    if case .text(let text) = value { return text }
                    return nil
                }
            }
        }

        /// A CSV field: quoted (quotes doubled) unless nil, which is the empty unquoted field, NULL.
        static func csv(_ value: String?) -> String {
            value.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" } ?? ""
        }

        /// What the rows below read back as.
        static func expected() -> [[String?]] {
            hostile.enumerated().map { index, text in
                [
                    String(index + 1), text, index == 0 ? "abc" : nil, index == 1 ? "-2147483648" : String(index),
                    index == 2 ? "12345678901234567890123456789.0123456789" : nil, index == 3 ? "1e+100" : "0.1",
                    index % 2 == 0 ? "true" : "false", index == 4 ? "{\"a\": [1, \"x\"]}" : nil,
                ]
            }
        }

        @Test("CSV round-trips hostile texts, NULLs, big integers and exact numerics")
        func csvRoundTrip() async throws {
            let fixture = try await PostgreSQLFixture.make([Self.table])
            defer { Task { await fixture.close() } }
            let files = try TemporaryDirectory()
            var text = "id,NAME,code,n,price,ratio,done,data\n"
            for row in Self.expected() {
                // The id unquoted, as an export writes numbers; the boolean as SQLite's 1 and 0.
                let done = row[6] == "true" ? "1" : "0"
                text += ([row[0]!] + row[1...5].map(Self.csv) + [done, Self.csv(row[7])]).joined(separator: ",")
                text += "\r\n"
            }
            let file = files.file("t.csv")
            try Data(text.utf8).write(to: file)
            let result = try await fixture.run(["import", "t", file.path])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Imported \(Self.hostile.count) rows into \"t\" from \(file.path).\n")
            #expect(try await Self.rows(fixture) == Self.expected())
        }

        @Test("JSON and NDJSON round-trip the same values, and big integers as numbers")
        func jsonRoundTrip() async throws {
            for format in ["json", "ndjson"] {
                let fixture = try await PostgreSQLFixture.make([Self.table])
                defer { Task { await fixture.close() } }
                let files = try TemporaryDirectory()
                var objects: [String] = []
                for row in Self.expected() {
                    var object: [String: Any] = [
                        "id": Int64(row[0]!)!, "name": row[1]!, "n": Int64(row[3]!)!, "done": row[6] == "true",
                        "ratio": Double(row[5]!)!,
                    ]
                    object["code"] = row[2] ?? NSNull()
                    // Exact decimals as strings: a JSON number is read as a double.
                    object["price"] = row[4] ?? NSNull()
                    if let data = row[7] { object["data"] = try JSONSerialization.jsonObject(with: Data(data.utf8)) }
                    let encoded = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    objects.append(String(decoding: encoded, as: UTF8.self))
                }
                objects.append(
                    #"{"id": 9223372036854775807, "name": "max", "n": 2147483647, "price": -9223372036854775808}"#)
                let text =
                    format == "json"
                    ? "[\n" + objects.joined(separator: ",\n") + "\n]\n" : objects.joined(separator: "\n")
                let file = files.file("t." + format)
                try Data(text.utf8).write(to: file)
                let result = try await fixture.run(["import", "t", file.path])
                #expect(result.status == 0, "\(format): \(result.errors)")
                #expect(result.output == "Imported \(objects.count) rows into \"t\" from \(file.path).\n", "\(format)")
                let rows = try await Self.rows(fixture)
                #expect(Array(rows.dropLast()) == Self.expected(), "\(format)")
                #expect(
                    rows.last == [
                        "9223372036854775807", "max", nil, "2147483647", "-9223372036854775808.0000000000", nil, nil,
                        nil,
                    ],
                    "\(format)")
            }
        }

        @Test(
            "A value the column refuses exits 1 naming the line, the column and the server's message; nothing imported",
            arguments: [
                (
                    "t.csv", "id,name,n\n1,a,1\n2,b,2\n3,c,abc\n4,d,4\n",
                    "t.csv, line 4: column \"n\" (integer): invalid input syntax for type integer: \"abc\""
                ),
                (
                    "t.ndjson",
                    "{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \"b\"}\n{\"id\": 3, \"name\": null}\n",
                    "t.ndjson, line 3: column \"name\" (text): null value in column \"name\" of relation \"t\" violates not-null constraint"
                ),
                (
                    "t.json", "[\n{\"id\": 1, \"name\": \"a\"},\n{\"id\": 2, \"name\": \"b\", \"n\": 3000000000}\n]\n",
                    "t.json, line 3: column \"n\" (integer): value \"3000000000\" is out of range for type integer"
                ),
                (
                    "t.csv", "id,name,code\n1,a,abc\n2,b,abcd\n",
                    "t.csv, line 3: value too long for type character(3)"
                ),
                (
                    "t.csv", "id,name\n1,a\n2,b\n1,c\n",
                    "t.csv, line 4: column \"id\" (bigint): duplicate key value violates unique constraint \"t_pkey\" "
                        + "(Key (id)=(1) already exists.)"
                ),
            ])
        func badValue(name: String, contents: String, message: String) async throws {
            let fixture = try await PostgreSQLFixture.make([
                Self.table, "INSERT INTO t (id, name) VALUES (100, 'kept')",
            ])
            defer { Task { await fixture.close() } }
            let files = try TemporaryDirectory()
            let file = files.file(name)
            try Data(contents.utf8).write(to: file)
            let result = try await fixture.run(["import", "t", file.path])
            #expect(result.status == 1)
            #expect(result.errors == "Error: \(file.path)\(message.dropFirst(name.count))\n  nothing was imported\n")
            #expect(result.output.isEmpty)
            #expect(try await Self.rows(fixture, "id, name") == [["100", "kept"]])
        }

        @Test("Unknown columns and tables are refused as on SQLite; generated columns are left out and named")
        func columns() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE people (id integer PRIMARY KEY, name text, age integer, twice integer GENERATED ALWAYS AS (age * 2) STORED)"
            ])
            defer { Task { await fixture.close() } }
            let files = try TemporaryDirectory()
            let header = files.file("bad.csv")
            try Data("name,agee\nAnn,3\n".utf8).write(to: header)
            let unknown = try await fixture.run(["import", "people", header.path])
            #expect(unknown.status == 1)
            #expect(
                unknown.errors == """
                    Error: \(header.path), line 1: no such column: "agee" in table "people"; did you mean "age"?
                      name,agee
                           ^^^^
                      columns of "people": id, name, age, twice
                      nothing was imported

                    """)
            let json = files.file("bad.ndjson")
            try Data("{\"id\": 1, \"name\": \"Ann\"}\n{\"id\": 2, \"Name\": \"Bob\", \"NAME\": \"Bo\"}\n".utf8).write(
                to: json)
            let same = try await fixture.run(["import", "people", json.path])
            #expect(same.status == 1)
            #expect(
                same.errors
                    == "Error: \(json.path), line 2: \"Name\" and \"NAME\" name the same column\n  nothing was imported\n"
            )
            let table = try await fixture.run(["import", "persons", header.path])
            #expect(table.status == 2)
            #expect(table.errors.hasPrefix("Error: no such table: \"persons\""), "\(table.errors)")
            #expect(try await fixture.database.fetchAll("SELECT * FROM people").isEmpty)

            let generated = files.file("people.csv")
            try Data("id,name,age,twice\n1,Ann,3,999\n2,Bob,,\n".utf8).write(to: generated)
            let result = try await fixture.run(["import", "people", generated.path])
            #expect(result.status == 0, "\(result.errors)")
            #expect(
                result.output
                    == "Imported 2 rows into \"people\" from \(generated.path), without the generated column \"twice\".\n"
            )
            let rows = try await fixture.database.fetchAll("SELECT id, name, age, twice FROM people ORDER BY id")
            #expect(
                rows.map(\.values) == [
                    [.integer(1), .text("Ann"), .integer(3), .integer(6)], [.integer(2), .text("Bob"), .null, .null],
                ])
        }

        @Test("Rows past 65,535 parameters go in several statements; a bad row in a later one is named")
        func batchBoundary() async throws {
            // Five columns: 13,107 rows bind exactly 65,535 parameters, PostgreSQL's limit.
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE wide (id integer PRIMARY KEY, a integer NOT NULL, b text, c double precision, d boolean)"
            ])
            defer { Task { await fixture.close() } }
            let count = 13_107 * 2 + 1
            var text = "id,a,b,c,d\n"
            for id in 1...count { text += "\(id),\(id % 97),\"r\(id)\",\(Double(id) / 4),\(id % 2)\n" }
            let files = try TemporaryDirectory()
            let file = files.file("wide.csv")
            try Data(text.utf8).write(to: file)
            let result = try await fixture.run(["import", "wide", file.path])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Imported \(count) rows into \"wide\" from \(file.path).\n")
            let check = try await fixture.database.fetchAll(
                "SELECT count(*), sum(id), sum(a), count(DISTINCT b), sum(c), count(*) FILTER (WHERE d) FROM wide")
            let expectedSum = Int64(count * (count + 1) / 2)
            let aSum = Int64((1...count).reduce(0) { $0 + $1 % 97 })
            #expect(
                check.first?.values == [
                    .integer(Int64(count)), .integer(expectedSum), .integer(aSum), .integer(Int64(count)),
                    .real(Double(expectedSum) / 4), .integer(Int64(count / 2 + 1)),
                ])

            try await fixture.database.execute("DELETE FROM wide")
            let bad = text.replacingOccurrences(of: "\n20000,", with: "\n20000x,")
            try Data(bad.utf8).write(to: file)
            let failed = try await fixture.run(["import", "wide", file.path])
            #expect(failed.status == 1)
            #expect(
                failed.errors
                    == "Error: \(file.path), line 20001: column \"id\" (integer): invalid input syntax for type integer: \"20000x\"\n  nothing was imported\n"
            )
            #expect(try await fixture.database.fetchAll("SELECT 1 FROM wide LIMIT 1").isEmpty)
        }

        @Test("The same random import and deletes on SQLite and on PostgreSQL leave the same rows")
        func differential() async throws {
            var random = SeededGenerator(seed: 0xD1FF_1A40)
            // The deletes' filters follow the foreign key `d` to `u`, as the query differential's do.
            let parents = PostgreSQLDifferentialTests.randomParents(&random)
            var text = "id,a,b,c,d\n"
            for id in 1...80 {
                let a = Int.random(in: 0..<6, using: &random) == 0 ? "" : String(Int.random(in: -5...5, using: &random))
                let b =
                    Int.random(in: 0..<6, using: &random) == 0
                    ? "" : String(PostgreSQLDifferentialTests.reals.randomElement(using: &random)!)
                let c =
                    Int.random(in: 0..<6, using: &random) == 0
                    ? "" : Self.csv(PostgreSQLDifferentialTests.texts.randomElement(using: &random)!)
                let d = Int.random(in: 0..<6, using: &random) == 0 ? "" : String(Int.random(in: 1...6, using: &random))
                text += "\(id),\(a),\(b),\(c),\(d)\n"
            }
            let files = try TemporaryDirectory()
            let file = files.file("t.csv")
            try Data(text.utf8).write(to: file)
            let path = files.file("differential.sqlite").path
            let sqlite = try Database(path: path)
            try sqlite.execute("CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT, w INTEGER)")
            try sqlite.execute(
                "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT, d INTEGER REFERENCES u (id))")
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE u (id bigint PRIMARY KEY, name text, w bigint)",
                "CREATE TABLE t (id bigint PRIMARY KEY, a bigint, b double precision, c text, d bigint REFERENCES u (id))",
            ])
            defer { Task { await fixture.close() } }
            for row in parents {
                try sqlite.execute("INSERT INTO u VALUES (?, ?, ?)", row)
                try await fixture.database.execute("INSERT INTO u VALUES ($1, $2, $3)", row)
            }
            let imported = try await TestServer.sqlq(["import", "t", file.path, "--db", path])
            #expect(imported.status == 0, "\(imported.errors)")
            let importedThere = try await fixture.run(["import", "t", file.path])
            #expect(importedThere.output == imported.output, "\(importedThere.errors)")
            let query = ["query", "t", "--sort", "id", "--format", "json"]
            #expect(try await fixture.run(query).output == (try await TestServer.sqlq(query + ["--db", path])).output)
            var deleted = 0
            for round in 0..<25 {
                let filter = PostgreSQLDifferentialTests.randomPredicate(&random, typedColumns: false)
                let arguments = ["delete", "t", "--where", filter, "--yes"]
                let onSQLite = try await TestServer.sqlq(arguments + ["--db", path])
                let onPostgreSQL = try await fixture.run(arguments)
                #expect(onSQLite.status == 0, "round \(round): \(filter): \(onSQLite.errors)")
                #expect(onPostgreSQL.output == onSQLite.output, "round \(round): \(filter): \(onPostgreSQL.errors)")
                if onSQLite.output.hasPrefix("Deleted") { deleted += 1 }
                let rows = try await TestServer.sqlq(query + ["--db", path])
                #expect(try await fixture.run(query).output == rows.output, "round \(round): \(filter)")
            }
            // The filters must delete something often enough to test the deletes.
            #expect(deleted >= 3)
            withExtendedLifetime(files) {}
        }
    }
#endif
