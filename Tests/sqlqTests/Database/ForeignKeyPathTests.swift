import ChildProcesses
import Foundation
import Testing

/// Dotted names that follow declared foreign keys, run through the real `sqlq` process.
@Suite("sqlq foreign-key paths", .onProcessThreads)
struct ForeignKeyPathTests {
    /// Responses by heroes, heroes in teams and with mentors (a key to their own table), and a
    /// foreign key of two columns. One response refers to a hero that does not exist, which
    /// only a connection without foreign-key enforcement can write.
    static let schema = """
        PRAGMA foreign_keys = OFF;
        CREATE TABLE teams(id INTEGER PRIMARY KEY, city TEXT NOT NULL, UNIQUE (id, city));
        CREATE TABLE heroes(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL,
            team_id INTEGER REFERENCES teams(id), mentor_id INTEGER REFERENCES heroes);
        CREATE TABLE responses(id INTEGER PRIMARY KEY, text TEXT NOT NULL, hero_id INTEGER REFERENCES heroes(id));
        CREATE INDEX responses_by_hero ON responses(hero_id);
        CREATE TABLE badges(code TEXT PRIMARY KEY, label TEXT);
        CREATE TABLE awards(id INTEGER PRIMARY KEY, badge TEXT REFERENCES badges(code), year INTEGER,
            city TEXT, team INTEGER, FOREIGN KEY (team, city) REFERENCES teams(id, city));
        INSERT INTO teams VALUES (1, 'Oslo'), (2, 'Rome');
        INSERT INTO heroes VALUES (1, 'lina', 1, NULL), (2, 'axe', 2, 1), (3, 'io', 2, 2);
        INSERT INTO responses VALUES
            (1, 'hi', 1), (2, 'yo', 2), (3, 'hey', 1), (4, 'nobody', NULL), (5, 'dangling', 99), (6, 'ok', 3);
        INSERT INTO badges VALUES ('gold', 'Gold'), ('x''y', 'Quote');
        INSERT INTO awards VALUES (1, 'gold', 2020, 'Oslo', 1), (2, 'x''y', 2021, 'Rome', 2);
        """

    @Test("--where and --columns follow a foreign key; the rows are those of the equivalent join")
    func oneHop() throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run([
            "query", "responses", "--where", "hero_id.name = 'lina'", "--columns", "text,hero_id.name",
            "--sort", "id", "--format", "csv",
        ])
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output == "text,hero_id.name\r\nhi,lina\r\nhey,lina\r\n")
        let joined = try database.count(
            "SELECT count(*) FROM responses r JOIN heroes h ON h.id = r.hero_id WHERE h.name = 'lina'")
        #expect(joined == 2)
    }

    @Test("A null or dangling key reads null, as a left join does, and every row stays")
    func nullKeys() throws {
        let database = try TestDatabase.with(Self.schema)
        let all = try database.run([
            "query", "responses", "--columns", "id,hero_id.name", "--sort", "id", "--format", "csv",
        ])
        #expect(all.output == "id,hero_id.name\r\n1,lina\r\n2,axe\r\n3,lina\r\n4,\r\n5,\r\n6,io\r\n")
        let missing = try database.run([
            "query", "responses", "--where", "hero_id.name is null", "--columns", "id", "--format", "csv",
        ])
        #expect(missing.output == "id\r\n4\r\n5\r\n")
        // A negated test leaves out the rows whose value is unknown, as for any null column.
        let negated = try database.run([
            "query", "responses", "--where", "not hero_id.name = 'lina'", "--columns", "id", "--format", "csv",
        ])
        #expect(negated.output == "id\r\n2\r\n6\r\n")
    }

    @Test("Chains of hops, a key to its own table, sorting and every predicate form")
    func chains() throws {
        let database = try TestDatabase.with(Self.schema)
        let rome = try database.run([
            "query", "responses", "--where", "hero_id.team_id.city = 'Rome'",
            "--columns", "text,hero_id.mentor_id.name,hero_id.mentor_id.mentor_id.name",
            "--sort", "-hero_id.name", "--format", "csv",
        ])
        #expect(rome.status == 0)
        #expect(
            rome.output == "text,hero_id.mentor_id.name,hero_id.mentor_id.mentor_id.name\r\nok,axe,lina\r\nyo,lina,\r\n"
        )
        let forms: [(String, String)] = [
            ("hero_id.name like 'l%'", "1,3"),
            ("hero_id.name in ('axe', 'io')", "2,6"),
            ("hero_id.team_id between 2 and 2", "2,6"),
            ("hero_id.name contains 'x'", "2"),
            ("hero_id.mentor_id is not null", "2,6"),
            ("hero_id.mentor_id.name = hero_id.team_id.city or hero_id.mentor_id.id = 1", "2"),
            ("\"hero_id\".\"name\" glob 'i*'", "6"),
        ]
        for (filter, ids) in forms {
            let result = try database.run([
                "query", "responses", "--where", filter, "--columns", "id", "--sort", "id", "--format", "csv",
            ])
            #expect(result.status == 0, "\(filter): \(result.errors)")
            #expect(result.output == "id\r\n" + ids.split(separator: ",").map { $0 + "\r\n" }.joined(), "\(filter)")
        }
    }

    @Test("Filters across keys select the rows of the equivalent left joins, negated and nested too")
    func sameRowsAsLeftJoins() throws {
        let database = try TestDatabase.with(Self.schema)
        // Each sqlq filter, and the same test written on left joins (h: the hero, t: the team,
        // m: the mentor).
        let cases: [(String, String)] = [
            ("hero_id.name = 'lina'", "h.name = 'lina'"),
            ("hero_id.name != 'lina'", "h.name != 'lina'"),
            ("hero_id.name = null", "h.name IS NULL"),
            ("hero_id.name != null", "h.name IS NOT NULL"),
            ("hero_id.team_id.city like 'R%' or text = 'nobody'", "t.city LIKE 'R%' OR r.text = 'nobody'"),
            (
                "hero_id.mentor_id.name not in ('lina') and hero_id.team_id between 1 and 2",
                "m.name NOT IN ('lina') AND h.team_id BETWEEN 1 AND 2"
            ),
            ("hero_id.name not like 'l%'", "h.name NOT LIKE 'l%'"),
            ("hero_id.mentor_id is not null", "h.mentor_id IS NOT NULL"),
        ]
        for (filter, sql) in cases {
            for (sqlqFilter, condition) in [(filter, sql), ("not (\(filter))", "NOT (\(sql))")] {
                let expected = try database.read { db in
                    try db.fetchAll(
                        Int.self,
                        """
                        SELECT r.id FROM responses r LEFT JOIN heroes h ON h.id = r.hero_id
                        LEFT JOIN teams t ON t.id = h.team_id LEFT JOIN heroes m ON m.id = h.mentor_id
                        WHERE \(condition) ORDER BY r.id
                        """)
                }
                let result = try database.run([
                    "query", "responses", "--where", sqlqFilter, "--columns", "id", "--sort", "id", "--format", "csv",
                ])
                #expect(result.status == 0, "\(sqlqFilter): \(result.errors)")
                #expect(result.output == "id\r\n" + expected.map { "\($0)\r\n" }.joined(), "\(sqlqFilter)")
            }
        }
    }

    @Test("Values are bound and names quoted: a quote in a value matches only that value")
    func bound() throws {
        let database = try TestDatabase.with(Self.schema)
        let quote = try database.run([
            "query", "awards", "--where", "badge.label = 'Quote' or badge.code = 'x''y'", "--columns", "id",
            "--format", "csv",
        ])
        #expect(quote.output == "id\r\n2\r\n")
        let injection = try database.run([
            "query", "responses", "--where", "hero_id.name = 'x'' OR 1=1 --'", "--count",
        ])
        #expect(injection.output == "0\n")
        let explain = try database.run(["query", "responses", "--where", "hero_id.name = 'lina'", "--explain"])
        #expect(
            explain.output.hasPrefix(
                #"SELECT * FROM "responses" WHERE "responses"."hero_id" IN (SELECT "responses.hero_id"."id" "#
                    + #"FROM "heroes" AS "responses.hero_id" WHERE "responses.hero_id"."name" = ?)"#
                    + "\n-- arguments: 'lina'\n"))
    }

    @Test("--explain: a filter runs from the foreign key's index; a column finds each hop by the parent's key")
    func plan() throws {
        let database = try TestDatabase.with(Self.schema)
        let filter = try database.run([
            "query", "responses", "--where", "hero_id.team_id.city = 'Rome'", "--explain",
        ])
        #expect(filter.status == 0)
        #expect(filter.output.contains("-- plan:\n--   SEARCH responses USING INDEX responses_by_hero (hero_id=?)\n"))
        let integerKey = try database.run([
            "query", "responses", "--columns", "hero_id.team_id.city", "--where", "not hero_id.name = 'x'", "--explain",
        ])
        #expect(integerKey.status == 0)
        #expect(integerKey.output.contains("SEARCH responses.hero_id USING INTEGER PRIMARY KEY (rowid=?)"))
        #expect(integerKey.output.contains("SEARCH responses.hero_id.team_id USING INTEGER PRIMARY KEY (rowid=?)"))
        let textKey = try database.run(["query", "awards", "--sort", "badge.label", "--explain"])
        #expect(textKey.output.contains("SEARCH awards.badge USING INDEX sqlite_autoindex_badges_1 (code=?)"))
    }

    @Test(
        "A wrong step is a usage error that points at it",
        arguments: [
            (
                "hero_id.nme = 'x'", 2,
                "Error: --where: no such column: \"nme\" in table \"heroes\"; did you mean \"name\"?\n"
                    + "  hero_id.nme = 'x'\n          ^^^\n  columns of \"heroes\": id, name, team_id, mentor_id\n"
            ),
            (
                "text.name = 'x'", 2,
                "Error: --where: column \"text\" of \"responses\" is not a foreign key (the foreign keys of "
                    + "\"responses\": (hero_id) → heroes(id)), so \"name\" cannot follow it\n  text.name = 'x'\n  ^^^^\n"
            ),
            (
                "hero_id.team_id.ciy = 'x'", 2,
                "Error: --where: no such column: \"ciy\" in table \"teams\"; did you mean \"city\"?\n"
                    + "  hero_id.team_id.ciy = 'x'\n                  ^^^\n  columns of \"teams\": id, city\n"
            ),
            (
                "hero_id. = 1", 2, "Error: --where: expected a column name after \".\"\n  hero_id. = 1\n         ^\n"
            ),
            (
                "hero_id.team_id = 'Rome'", 2,
                "Error: --where: type mismatch: column \"team_id\" (INTEGER) holds numbers, but the string 'Rome' is text\n"
                    + "  hero_id.team_id = 'Rome'\n                    ^^^^^^\n"
            ),
        ])
    func wrongStep(filter: String, status: Int32, message: String) throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run(["query", "responses", "--where", filter])
        #expect(result.status == status)
        #expect(result.errors == message)
        #expect(result.output.isEmpty)
    }

    @Test("A foreign key of several columns is followed from any of its columns, matching them all")
    func composite() throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run([
            "query", "awards", "--columns", "id,team.city,city.id", "--where", "team.city = 'Rome'", "--format", "csv",
        ])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "id,team.city,city.id\r\n2,Rome,2\r\n")
        let explain = try database.run(["query", "awards", "--where", "team.city = 'Rome'", "--explain"])
        #expect(
            explain.output.contains(
                #"WHERE ("awards"."team", "awards"."city") IN (SELECT "awards.team"."id", "awards.team"."city" "#
                    + #"FROM "teams" AS "awards.team" WHERE "awards.team"."city" = ?)"#))
        let lookup = try database.run(["query", "awards", "--columns", "team.city", "--explain"])
        #expect(
            lookup.output.contains(
                #""awards.team"."id" = "awards"."team" AND "awards.team"."city" = "awards"."city""#))
    }

    @Test("A column in two foreign keys is refused; a chain longer than the bound too")
    func refused() throws {
        let database = try TestDatabase.with(
            Self.schema + """
                CREATE TABLE visits(id INTEGER PRIMARY KEY, team INTEGER, city TEXT, hero INTEGER,
                    FOREIGN KEY (team, city) REFERENCES teams(id, city), FOREIGN KEY (team) REFERENCES teams(id));
                """)
        let ambiguous = try database.run(["query", "visits", "--columns", "id,team.city"])
        #expect(ambiguous.status == 2)
        #expect(
            ambiguous.errors.hasPrefix(
                "Error: --columns: column \"team\" of \"visits\" is in 2 foreign keys ((team) → teams(id); "
                    + "(team, city) → teams(id, city)), and its name cannot say which to follow; name a column that is in "
                    + "only one, so \"city\" cannot follow it\n  id,team.city\n     ^^^^\n"))
        let notKey = try database.run(["query", "visits", "--where", "hero.name = 'x'"])
        #expect(notKey.status == 2)
        #expect(notKey.errors.hasPrefix("Error: --where: column \"hero\" of \"visits\" is not a foreign key"))
        let long = String(repeating: "mentor_id.", count: 9) + "name"
        let tooLong = try database.run(["query", "heroes", "--where", long + " = 'x'"])
        #expect(tooLong.status == 2)
        #expect(tooLong.errors.hasPrefix("Error: --where: this name follows more than 8 foreign keys"))
        let eight = String(repeating: "mentor_id.", count: 8) + "name"
        let allowed = try database.run(["query", "heroes", "--where", eight + " is null", "--count"])
        #expect(allowed.status == 0)
        #expect(allowed.output == "3\n")
        let columns = try database.run(["query", "heroes", "--columns", long])
        #expect(columns.status == 2)
        #expect(columns.errors.hasPrefix("Error: --columns: this name follows 9 foreign keys"))
    }

    @Test("delete --where with a dotted name deletes exactly the rows it names")
    func delete() throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run(["delete", "responses", "--where", "hero_id.team_id.city = 'Oslo'", "--yes"])
        #expect(result.status == 0)
        #expect(result.output == "Deleted 2 rows from \"responses\".\n")
        let left = try database.read { db in
            try db.fetchAll(Int.self, "SELECT id FROM responses ORDER BY id")
        }
        #expect(left == [2, 4, 5, 6])
        #expect(try database.count("SELECT count(*) FROM heroes") == 3)
    }

    @Test("watch redraws when a followed table changes")
    func watch() async throws {
        let database = try TestDatabase.with(Self.schema)
        let watch = try RunningCommand([
            "watch", "responses", "--where", "hero_id.name = 'lina'", "--columns", "text", "--sort", "id",
            "--format", "tsv", "--db", database.path,
        ])
        try await watch.output.waitFor("-- 2 rows, last change at ")
        try SQLiteShell.run(database.path, "UPDATE heroes SET name = 'lina' WHERE id = 3")
        try await watch.output.waitFor("-- 3 rows, last change at ")
        #expect(watch.output.text.contains("text\nhi\nhey\nok\n-- 3 rows"))
        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    /// The ids `sqlq query` prints for `arguments`, one CSV column of ids.
    private static func ids(_ database: TestDatabase, _ arguments: [String]) throws -> [String] {
        let result = try database.run(arguments + ["--format", "csv"])
        #expect(result.status == 0, "\(arguments): \(result.errors)")
        // CSV ends each line with CRLF, one Character in Swift.
        return Array(result.output.components(separatedBy: "\r\n").dropFirst().dropLast())
    }

    @Test("A parent key with a NOCASE collation: every form gives the rows SQLite's foreign-key check matches")
    func parentCollation() throws {
        let database = try TestDatabase.with(
            """
            PRAGMA foreign_keys = OFF;
            CREATE TABLE colp(code TEXT COLLATE NOCASE PRIMARY KEY, name TEXT);
            CREATE TABLE colc(id INTEGER PRIMARY KEY, ref TEXT REFERENCES colp(code));
            INSERT INTO colp VALUES ('ABC', 'x');
            INSERT INTO colc VALUES (1, 'abc'), (2, 'ABC'), (3, 'abd');
            CREATE TABLE binp(code TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE binc(id INTEGER PRIMARY KEY, ref TEXT COLLATE NOCASE REFERENCES binp(code));
            INSERT INTO binp VALUES ('ABC', 'y');
            INSERT INTO binc VALUES (1, 'abc'), (2, 'ABC');
            """)
        // SQLite's own check: the rows whose key finds no parent.
        let orphans = try database.read { db in
            try db.fetchAll(String.self, "SELECT \"table\" || ':' || rowid FROM pragma_foreign_key_check ORDER BY 1")
        }
        #expect(orphans == ["binc:1", "colc:3"])
        let lookup = try database.run(["query", "colc", "--columns", "id,ref.name", "--sort", "id", "--format", "csv"])
        #expect(lookup.output == "id,ref.name\r\n1,x\r\n2,x\r\n3,\r\n")
        let facet = try database.run(["query", "colc", "--facet", "ref.name", "--format", "csv"])
        #expect(facet.output.contains("x,2"), "\(facet.output)")
        let forms: [(String, String, [String])] = [
            ("colc", "ref.name = 'x'", ["1", "2"]),
            ("colc", "not ref.name = 'x'", []),
            ("colc", "ref.name != 'x'", []),
            ("colc", "ref.name in ('x')", ["1", "2"]),
            ("colc", "ref.name like 'x'", ["1", "2"]),
            ("colc", "ref.name is null", ["3"]),
            ("binc", "ref.name = 'y'", ["2"]),
            ("binc", "not ref.name = 'y'", []),
            ("binc", "ref.name is null", ["1"]),
        ]
        for (table, filter, expected) in forms {
            #expect(
                try Self.ids(database, ["query", table, "--where", filter, "--columns", "id", "--sort", "id"])
                    == expected, "\(table): \(filter)")
        }
        let delete = try database.run(["delete", "colc", "--where", "ref.name = 'x'", "--yes"])
        #expect(delete.output == "Deleted 2 rows from \"colc\".\n")
        #expect(try database.count("SELECT count(*) FROM colc") == 1)
    }

    @Test("A key whose child and parent affinities differ matches as SQLite's foreign-key check does")
    func parentAffinity() throws {
        let database = try TestDatabase.with(
            """
            PRAGMA foreign_keys = OFF;
            CREATE TABLE p(code TEXT UNIQUE, nm TEXT);
            INSERT INTO p VALUES ('02', 'two'), ('3', 'three');
            CREATE TABLE c(id INTEGER PRIMARY KEY, n INTEGER REFERENCES p(code));
            INSERT INTO c VALUES (1, 2), (2, 3);
            CREATE TABLE u(id INTEGER PRIMARY KEY, n REFERENCES p(code));
            INSERT INTO u VALUES (1, 2), (2, 3), (3, '3');
            """)
        let orphans = try database.read { db in
            try db.fetchAll(String.self, "SELECT \"table\" || ':' || rowid FROM pragma_foreign_key_check ORDER BY 1")
        }
        #expect(orphans == ["c:1", "u:1"])
        let lookup = try database.run(["query", "c", "--columns", "id,n.nm", "--sort", "id", "--format", "csv"])
        #expect(lookup.output == "id,n.nm\r\n1,\r\n2,three\r\n")
        let untyped = try database.run(["query", "u", "--columns", "id,n.nm", "--sort", "id", "--format", "csv"])
        #expect(untyped.output == "id,n.nm\r\n1,\r\n2,three\r\n3,three\r\n")
        let forms: [(String, String, [String])] = [
            ("c", "n.nm = 'two'", []),
            ("c", "n.nm = 'three'", ["2"]),
            ("c", "not n.nm = 'three'", []),
            ("c", "n.nm is null", ["1"]),
            ("u", "n.nm = 'three'", ["2", "3"]),
            ("u", "n.nm in ('two', 'three')", ["2", "3"]),
            ("u", "not n.nm = 'three'", []),
        ]
        for (table, filter, expected) in forms {
            #expect(
                try Self.ids(database, ["query", table, "--where", filter, "--columns", "id", "--sort", "id"])
                    == expected, "\(table): \(filter)")
        }
        let delete = try database.run(["delete", "c", "--where", "n.nm = 'two'", "--yes"])
        #expect(delete.status == 0)
        #expect(try database.count("SELECT count(*) FROM c") == 2)
    }

    @Test("A foreign key to columns that are not unique is SQLite's foreign key mismatch: a usage error")
    func nonUniqueParent() throws {
        let database = try TestDatabase.with(
            """
            PRAGMA foreign_keys = OFF;
            CREATE TABLE p(id INTEGER, name TEXT);
            INSERT INTO p VALUES (1, 'b'), (1, 'a');
            CREATE TABLE c(id INTEGER PRIMARY KEY, p INTEGER REFERENCES p(id));
            INSERT INTO c VALUES (1, 1);
            CREATE TABLE q(code TEXT, name TEXT);
            CREATE UNIQUE INDEX q_code ON q(code COLLATE NOCASE);
            CREATE TABLE d(id INTEGER PRIMARY KEY, q TEXT REFERENCES q(code));
            """)
        for arguments in [
            ["query", "c", "--columns", "p.name"], ["query", "c", "--where", "p.name = 'a'"],
            ["query", "c", "--where", "not p.name = 'a'"], ["query", "c", "--facet", "p.name"],
            ["delete", "c", "--where", "p.name = 'a'", "--yes"],
        ] {
            let result = try database.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.contains("foreign key mismatch"), "\(arguments): \(result.errors)")
            #expect(result.errors.contains("no unique index"), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        // A unique index whose collation is not the column's does not make a parent key either.
        let collation = try database.run(["query", "d", "--columns", "q.name"])
        #expect(collation.status == 2)
        #expect(collation.errors.contains("foreign key mismatch"), "\(collation.errors)")
        #expect(try database.count("SELECT count(*) FROM c") == 1)
    }

    @Test("A foreign key to a parent column that does not exist is a usage error that points at the step")
    func missingParentColumn() throws {
        let database = try TestDatabase.with(
            """
            PRAGMA foreign_keys = OFF;
            CREATE TABLE ch(id INTEGER PRIMARY KEY, p INTEGER REFERENCES ch(nosuch), name TEXT);
            INSERT INTO ch VALUES (1, 1, 'a');
            """)
        let result = try database.run(["query", "ch", "--where", "p.name = 'a'"])
        #expect(result.status == 2)
        #expect(
            result.errors
                == "Error: --where: the foreign key (p) → ch(nosuch) refers to column \"nosuch\", which \"ch\" "
                + "lacks (its columns: id, p, name), so \"name\" cannot follow it\n  p.name = 'a'\n  ^\n")
        let columns = try database.run(["query", "ch", "--columns", "id,p.name"])
        #expect(columns.status == 2)
        #expect(columns.errors.hasPrefix("Error: --columns: the foreign key (p) → ch(nosuch) refers to column"))
        #expect(columns.errors.hasSuffix("\n  id,p.name\n     ^\n"))
    }

    @Test("--columns, --facet and --sort follow a key from a column whose name holds a dot, quoted")
    func dottedColumnName() throws {
        let database = try TestDatabase.with(
            Self.schema + """
                CREATE TABLE members(id INTEGER PRIMARY KEY, "my.team" INTEGER REFERENCES teams(id));
                INSERT INTO members VALUES (1, 1), (2, 2), (3, 2);
                """)
        let columns = try database.run([
            "query", "members", "--columns", #"id,"my.team".city"#, "--sort", #"-"my.team".city,id"#,
            "--format", "csv",
        ])
        #expect(columns.status == 0, "\(columns.errors)")
        #expect(columns.output == "id,my.team.city\r\n2,Rome\r\n3,Rome\r\n1,Oslo\r\n")
        let facet = try database.run(["query", "members", "--facet", #""my.team".city"#, "--format", "csv"])
        #expect(facet.status == 0, "\(facet.errors)")
        #expect(facet.output.contains("Rome,2"), "\(facet.output)")
        let filter = try database.run([
            "query", "members", "--where", #""my.team".city = 'Oslo'"#, "--columns", #""my.team""#, "--format", "csv",
        ])
        #expect(filter.output == "my.team\r\n1\r\n")
        // The column's own name, unquoted, still names it.
        let plain = try database.run(["query", "members", "--columns", "my.team", "--sort", "id", "--format", "csv"])
        #expect(plain.output == "my.team\r\n1\r\n2\r\n2\r\n")
    }
}
