#if PostgreSQL
    import Foundation
    import Glibc
    import Locking
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    @Suite("sqlq on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLCommandTests {
        static let schema = [
            "CREATE TABLE lists (id integer PRIMARY KEY, name text NOT NULL)",
            """
            CREATE TABLE items (
                id bigint PRIMARY KEY, title text NOT NULL, priority integer, done boolean NOT NULL DEFAULT false,
                due date, price numeric, ratio double precision, data jsonb, list_id integer REFERENCES lists (id))
            """,
            "CREATE INDEX items_by_priority ON items (priority)",
            "CREATE VIEW open_items AS SELECT id, title FROM items WHERE NOT done",
            "INSERT INTO lists VALUES (1, 'Home'), (2, 'Work')",
            """
            INSERT INTO items VALUES
                (1, 'milk', 3, false, '2026-03-01', 2.50, 0.5, '{"a": 1}', 1),
                (2, 'Bread', 1, true, NULL, 12345678901234567890.123, -1, NULL, 1),
                (3, 'report', 5, false, '2026-02-10', NULL, NULL, '[1, 2]', 2),
                (4, 'apples', NULL, false, '2026-04-01', 7, 1e100, NULL, NULL)
            """,
        ]

        @Test("tables lists the tables and views, plainly and in every format")
        func tables() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let plain = try await fixture.run(["tables"])
            #expect(plain.status == 0, "\(plain.errors)")
            #expect(plain.output == "items\nlists\nopen_items\n")
            let csv = try await fixture.run(["tables", "--format", "csv"])
            #expect(csv.output == "name,type,columns\r\nitems,table,9\r\nlists,table,2\r\nopen_items,view,2\r\n")
            let json = try await fixture.run(["tables", "--format", "json"])
            #expect(
                json.output == """
                    [
                    {"name":"items","type":"table","columns":9},
                    {"name":"lists","type":"table","columns":2},
                    {"name":"open_items","type":"view","columns":2}
                    ]

                    """)
            for format in ["table", "ndjson", "tsv", "markdown"] {
                let result = try await fixture.run(["tables", "--format", format])
                #expect(result.status == 0, "\(format): \(result.errors)")
                #expect(result.output.contains("open_items"), "\(format)")
            }
        }

        @Test("schema lists the columns, then the foreign keys and indexes")
        func schema() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let tsv = try await fixture.run(["schema", "ITEMS", "--format", "tsv"])
            #expect(tsv.status == 0, "\(tsv.errors)")
            #expect(
                tsv.output == """
                    cid\tname\ttype\tnotnull\tdflt_value\tpk\tgenerated
                    0\tid\tbigint\t1\t\\N\t1\t\\N
                    1\ttitle\ttext\t1\t\\N\t0\t\\N
                    2\tpriority\tinteger\t0\t\\N\t0\t\\N
                    3\tdone\tboolean\t1\tfalse\t0\t\\N
                    4\tdue\tdate\t0\t\\N\t0\t\\N
                    5\tprice\tnumeric\t0\t\\N\t0\t\\N
                    6\tratio\tdouble precision\t0\t\\N\t0\t\\N
                    7\tdata\tjsonb\t0\t\\N\t0\t\\N
                    8\tlist_id\tinteger\t0\t\\N\t0\t\\N

                    """)
            let plain = try await fixture.run(["schema", "items"])
            #expect(plain.status == 0, "\(plain.errors)")
            #expect(plain.output.contains("| done     | boolean          |       1 | false      |  0 |"))
            #expect(
                plain.output.contains(
                    "foreign keys:\n  items_list_id_fkey: FOREIGN KEY (list_id) REFERENCES lists(id)\n"))
            #expect(
                plain.output.hasSuffix(
                    """
                    indexes:
                      CREATE INDEX items_by_priority ON public.items USING btree (priority);
                      CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id);

                    """))
        }

        @Test("query filters, sorts, limits and selects, in every format")
        func query() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let base = ["query", "items", "--where", "priority >= 3 or priority is null", "--sort", "-priority"]
            let json = try await fixture.run(base + ["--format", "json"])
            #expect(json.status == 0, "\(json.errors)")
            #expect(
                json.output == """
                    [
                    {"id":3,"title":"report","priority":5,"done":false,"due":"2026-02-10","price":null,"ratio":null,"data":"[1, 2]","list_id":2},
                    {"id":1,"title":"milk","priority":3,"done":false,"due":"2026-03-01","price":2.5,"ratio":0.5,"data":"{\\"a\\": 1}","list_id":1},
                    {"id":4,"title":"apples","priority":null,"done":false,"due":"2026-04-01","price":7,"ratio":1e+100,"data":null,"list_id":null}
                    ]

                    """)
            let csv = try await fixture.run(
                ["query", "items", "--columns", "id,title,done,price,ratio", "--sort", "id", "--format", "csv"])
            #expect(
                csv.output == """
                    id,title,done,price,ratio\r
                    1,milk,f,2.50,0.5\r
                    2,Bread,t,12345678901234567890.123,-1\r
                    3,report,f,,\r
                    4,apples,f,7,1e+100\r

                    """)
            let exact = try await fixture.run([
                "query", "items", "--where", "id = 2", "--columns", "price", "--format", "ndjson",
            ])
            #expect(exact.output == "{\"price\":\"12345678901234567890.123\"}\n")
            let table = try await fixture.run(
                ["query", "items", "--where", "title like 'A%'", "--columns", "id, title", "--sort", "title"])
            #expect(
                table.output == """
                     id | title
                    ----+--------
                      4 | apples
                    (1 row)

                    """)
            let limited = try await fixture.run(
                [
                    "query", "items", "--sort", "id", "--limit", "2", "--offset", "1", "--columns", "id", "--format",
                    "tsv",
                ])
            #expect(limited.output == "id\n2\n3\n")
            let count = try await fixture.run(["query", "items", "--where", "not done and due < 2026-03-15", "--count"])
            #expect(count.output == "2\n")
            let markdown = try await fixture.run(
                ["query", "items", "--where", "title contains 'EAD'", "--columns", "title", "--format", "markdown"])
            #expect(markdown.output == "| title |\n|-------|\n| Bread |\n")
            let typed = try await fixture.run(
                [
                    "query", "items", "--where", "price > 5 and done = false and list_id in (1, 2) or priority = '5'",
                    "--columns", "id", "--sort", "id", "--format", "csv",
                ])
            #expect(typed.output == "id\r\n3\r\n", "\(typed.errors)")
        }

        @Test("Text compares byte by byte, and like folds only ASCII letters, as on SQLite")
        func textSemantics() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE t (id integer PRIMARY KEY, name text)",
                "INSERT INTO t VALUES (1, 'b'), (2, 'B'), (3, 'é'), (4, 'É'), (5, 'a_c'), (6, 'abc')",
            ])
            defer { Task { await fixture.close() } }
            let sorted = try await fixture.run(["query", "t", "--sort", "name", "--columns", "id", "--format", "csv"])
            #expect(sorted.output == "id\r\n2\r\n5\r\n6\r\n1\r\n4\r\n3\r\n")
            let like = try await fixture.run(
                [
                    "query", "t", "--where", "name like 'B' or name like 'é' or name like 'a\\\\_c'", "--columns", "id",
                    "--sort", "id", "--format", "csv",
                ])
            #expect(like.output == "id\r\n1\r\n2\r\n3\r\n", "\(like.errors)")
        }

        @Test("Other types print as PostgreSQL's text form, and literals compare as the column's type")
        func otherTypes() async throws {
            let fixture = try await PostgreSQLFixture.make([
                """
                CREATE TABLE e (id integer PRIMARY KEY, at timestamptz, tag uuid, tags text[], wait interval,
                    bytes bytea, small real)
                """,
                """
                INSERT INTO e VALUES
                    (1, '2026-03-01 09:30:00+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{x,"y z"}', '1 day',
                        '\\x00ff', 0.25),
                    (2, '2026-03-02 00:00:00+00', NULL, '{}', '02:00:00', NULL, 'NaN')
                """,
            ])
            defer { Task { await fixture.close() } }
            let csv = try await fixture.run(["query", "e", "--sort", "id", "--format", "csv"])
            #expect(csv.status == 0, "\(csv.errors)")
            #expect(
                csv.output == """
                    id,at,tag,tags,wait,bytes,small\r
                    1,2026-03-01 09:30:00+00,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,"{x,""y z""}",1 day,\\x00ff,0.25\r
                    2,2026-03-02 00:00:00+00,,{},02:00:00,,\r

                    """)
            let json = try await fixture.run([
                "query", "e", "--sort", "id", "--columns", "id,small", "--format", "ndjson",
            ])
            #expect(json.output == "{\"id\":1,\"small\":0.25}\n{\"id\":2,\"small\":null}\n")
            let filtered = try await fixture.run(
                [
                    "query", "e", "--where",
                    "at >= 2026-03-01T10:00+01:00 and at < 2026-03-02 and tag = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'",
                    "--count",
                ])
            #expect(filtered.output == "1\n", "\(filtered.errors)")
            let mismatch = try await fixture.run(["query", "e", "--where", "at > 3"])
            #expect(mismatch.status == 2)
            #expect(mismatch.errors.contains("type mismatch"))
        }

        @Test("Errors: unknown table and column, bad filter, glob, unsupported options")
        func errors() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let table = try await fixture.run(["query", "itemz"])
            #expect(table.status == 2)
            #expect(table.errors.hasPrefix("Error: no such table: \"itemz\"; did you mean \"items\"?"))
            let column = try await fixture.run(["query", "items", "--where", "titel = 'x'"])
            #expect(column.status == 2)
            #expect(column.errors.contains("no such column: \"titel\" in table \"items\"; did you mean \"title\"?"))
            let sort = try await fixture.run(["query", "items", "--sort", "-prio"])
            #expect(sort.status == 2)
            #expect(sort.errors.contains("--sort: no such column: \"prio\""))
            let syntax = try await fixture.run(["query", "items", "--where", "priority >="])
            #expect(syntax.status == 2)
            #expect(syntax.errors.contains("expected a column or a value after \">=\""))
            let glob = try await fixture.run(["query", "items", "--where", "title glob 'm*'"])
            #expect(glob.status == 2)
            #expect(glob.errors.contains("glob is not available on PostgreSQL"))
            let mismatch = try await fixture.run(["query", "items", "--where", "title = 3"])
            #expect(mismatch.status == 2)
            #expect(mismatch.errors.contains("type mismatch"))
            for option in [["--search", "milk"]] {
                let result = try await fixture.run(["query", "items"] + option)
                #expect(result.status == 2, "\(option)")
                #expect(result.errors == "Error: \(option[0]) is not available on PostgreSQL yet\n")
            }
            for command in [["sql", "SELECT 1"]] {
                let result = try await fixture.run(command)
                #expect(result.status == 2, "\(command)")
                #expect(
                    result.errors
                        == "Error: sqlq \(command[0]) is not available on PostgreSQL yet; on PostgreSQL, sqlq runs tables, schema, query, watch, delete, import, install-notifications and uninstall-notifications\n"
                )
            }
        }

        @Test("A malformed URL is a usage error naming the part; a refused or silent server fails quickly")
        func connection() async throws {
            let port = try await TestServer.sqlq(["tables", "--db", "postgresql://me@localhost:99999/db"])
            #expect(port.status == 2)
            #expect(
                port.errors
                    == "Error: malformed PostgreSQL URL \"postgresql://me@localhost:99999/db\": the port is wrong: "
                    + "\"99999\" is not a port number from 1 to 65535\n")
            let mode = try await TestServer.sqlq(["tables", "--db", "postgres://me:secret@h/db?sslmode=maybe"])
            #expect(mode.status == 2)
            #expect(mode.errors.contains("the sslmode is wrong"))
            #expect(mode.errors.contains("me:***@h"))
            #expect(!mode.errors.contains("secret"))
            // A timeout past what the connection's timer holds is refused, rather than overflow it.
            let timeout = try await TestServer.sqlq(
                ["tables", "--db", "postgresql://me@localhost/db?connect_timeout=99999999999"])
            #expect(timeout.status == 2)
            #expect(timeout.errors.contains("the connect_timeout is wrong"), "\(timeout.errors)")
            let free = try TCPPort.free()
            let start = ContinuousClock.now
            let refused = try await TestServer.sqlq(
                ["query", "items"],
                environment: ["DATABASE_URL": "postgresql://me@127.0.0.1:\(free)/db?connect_timeout=5"])
            #expect(refused.status == 1)
            #expect(
                refused.errors.hasPrefix(
                    "Error: cannot connect to the PostgreSQL server of postgresql://me@127.0.0.1:\(free)/db"))
            #expect(ContinuousClock.now - start < .seconds(60))

            // A server that accepts the connection and never answers: the connect timeout ends it.
            let listener = try TCPListener()
            defer { listener.close() }
            let silentStart = ContinuousClock.now
            let silent = try await TestServer.sqlq(
                ["tables", "--db", "postgresql://me@127.0.0.1:\(listener.port)/db?connect_timeout=1"])
            #expect(silent.status == 1)
            #expect(silent.errors.hasPrefix("Error: cannot connect to the PostgreSQL server of "), "\(silent.errors)")
            #expect(ContinuousClock.now - silentStart < .seconds(60))
        }

        @Test("--timeout bounds each command's wait for another session's lock, and says which limit passed")
        func timeout() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE pub (id integer PRIMARY KEY, v text)", "INSERT INTO pub VALUES (1, 'a')",
            ])
            defer { Task { await fixture.close() } }
            let files = try TemporaryDirectory()
            let csv = try files.write("rows.csv", "id,v\n2,b\n")
            let url = fixture.url
            let commands = [
                ["query", "pub", "--timeout", "1"], ["query", "pub", "--facet", "v", "--timeout", "1"],
                ["query", "pub", "--count", "--timeout", "0"], ["schema", "pub", "--timeout", "1"],
                ["delete", "pub", "--where", "id = 1", "--yes", "--timeout", "1"],
                ["import", "pub", csv, "--timeout", "1"], ["install-notifications", "pub", "--timeout", "1"],
            ]
            let holder = try await PostgreSQLDatabase(fixture.database.configuration)
            // The lock is held until every command has exited, or outwaited a bound far beyond
            // its --timeout: a command that waits for the lock's release fails the test.
            let results = try await holder.transaction { tx in
                try await tx.execute("LOCK pub IN ACCESS EXCLUSIVE MODE")
                var results: [CommandResult] = []
                for arguments in commands {
                    results.append(
                        try await TestServer.offPool {
                            try BackgroundCommand(arguments + ["--db", url]).wait(limit: 30)
                        })
                }
                return results
            }
            await holder.close()
            // An install gives way to the lock for as long as --timeout, not its own 30 s.
            let install = try #require(results.last)
            #expect(install.status == 1, "\(install.errors)")
            #expect(
                install.errors.hasPrefix(
                    "Error: PostgreSQL: cannot install change notifications: other transactions held table "
                        + "\"public\".\"pub\" for 1 s; nothing of it was changed"),
                "\(install.errors)")
            for (arguments, result) in zip(commands.dropLast(), results) {
                #expect(result.status == 1, "\(arguments): \(result.errors)")
                let limit = arguments.last == "0" ? "0" : "1"
                #expect(
                    result.errors.hasPrefix(
                        "Error: another session held a lock that this command needs (on a table or rows it reads or "
                            + "writes) for longer than --timeout (\(limit) s), so PostgreSQL cancelled the statement"),
                    "\(arguments): \(result.errors)")
                #expect(result.errors.contains("or wait longer with --timeout SECONDS\n  SQL: "), "\(arguments)")
            }
            // Nothing of the schema is printed when a part of it cannot be read.
            #expect(results[3].output == "", "\(results[3].output)")
            #expect(results[4].errors.hasSuffix("\n  nothing was deleted\n"), "\(results[4].errors)")
            #expect(results[5].errors.hasSuffix("\n  nothing was imported\n"), "\(results[5].errors)")
            let after = try await fixture.run(["query", "pub", "--format", "csv"])
            #expect(after.output == "id,v\r\n1,a\r\n", "\(after.errors)")
        }

        @Test("A missing password, and a server that is not PostgreSQL, are told in words that say what to do")
        func connectionFailures() async throws {
            try await TestCluster.with(tcp: true) { cluster in
                try await cluster.requirePassword(role: "pwuser", password: "secret")
                let url = "postgresql://pwuser@127.0.0.1:\(cluster.port)/postgres"
                let missing = try await TestServer.sqlq(["tables", "--db", url], environment: ["PGPASSWORD": ""])
                #expect(missing.status == 1)
                #expect(
                    missing.errors
                        == "Error: cannot connect to the PostgreSQL server of \(url): the server asks for a password "
                        + "for role \"pwuser\", and none was given: put it in the URL "
                        + "(postgresql://pwuser:PASSWORD@127.0.0.1:\(cluster.port)/postgres, with any of : @ / ? # % in "
                        + "it percent-encoded) or in the PGPASSWORD environment variable (sqlq reads no .pgpass file)\n"
                )
                let given = try await TestServer.sqlq(["tables", "--db", url], environment: ["PGPASSWORD": "secret"])
                #expect(given.status == 0, "\(given.errors)")
                let wrong = try await TestServer.sqlq(["tables", "--db", url], environment: ["PGPASSWORD": "wrong"])
                #expect(wrong.status == 1)
                #expect(wrong.errors.contains("password authentication failed for user \"pwuser\""), "\(wrong.errors)")
            }

            for (behaviour, mode) in [
                (JunkServer.Behaviour.answerAndClose, "disable"), (.answerAndClose, "prefer"), (.close, "prefer"),
            ] {
                let junk = try JunkServer(behaviour)
                defer { junk.stop() }
                let url = "postgresql://me@127.0.0.1:\(junk.port)/db?sslmode=\(mode)&connect_timeout=60"
                let result = try await TestServer.offPool {
                    try BackgroundCommand(["tables", "--db", url]).wait(limit: 30)
                }
                #expect(result.status == 1, "\(behaviour), \(mode)")
                #expect(
                    result.errors.hasPrefix(
                        "Error: cannot connect to the PostgreSQL server of postgresql://me@127.0.0.1:\(junk.port)/db: "
                            + "what answers at 127.0.0.1:\(junk.port) did not answer as a PostgreSQL server (it "),
                    "\(behaviour), \(mode): \(result.errors)")
                #expect(result.errors.hasSuffix("; check the URL's host and port\n"), "\(result.errors)")
            }
            // One that answers junk and keeps the connection open is told apart at connect_timeout.
            let junk = try JunkServer(.answerAndHold)
            defer { junk.stop() }
            let held = try await TestServer.sqlq([
                "tables", "--db", "postgresql://me@127.0.0.1:\(junk.port)/db?connect_timeout=1",
            ])
            #expect(held.status == 1)
            #expect(
                held.errors.contains(": nothing answered as a PostgreSQL server within connect_timeout (1 s): "),
                "\(held.errors)")
        }

        @Test("Hostile values round-trip unchanged")
        func hostileValues() async throws {
            let values = [
                "O'Brien", "\"quoted\"", "'; DROP TABLE t; --", "line\nbreak\r\n", "tab\there", "back\\slash",
                "emoji 🎉 and ünïcödé", "%_*?[", "",
            ]
            let fixture = try await PostgreSQLFixture.make(["CREATE TABLE t (id integer PRIMARY KEY, v text)"])
            defer { Task { await fixture.close() } }
            for (index, value) in values.enumerated() {
                try await fixture.database.execute(
                    "INSERT INTO t VALUES ($1, $2)", [.integer(Int64(index)), .text(value)])
            }
            let json = try await fixture.run(["query", "t", "--sort", "id", "--format", "json"])
            #expect(json.status == 0, "\(json.errors)")
            let rows = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
            #expect(rows?.map { $0["v"] as? String } == values)
            let found = try await fixture.run(
                [
                    "query", "t", "--where", "v contains '; DROP' or v contains '%_*'", "--columns", "id", "--sort",
                    "id",
                    "--format", "csv",
                ])
            #expect(found.output == "id\r\n2\r\n7\r\n", "\(found.errors)")
            let tables = try await fixture.run(["tables"])
            #expect(tables.output == "t\n")
        }
    }

    /// A TCP listener on 127.0.0.1 that is no PostgreSQL server: each connection it accepts
    /// gets an HTTP error, or nothing, as `behaviour` says.
    final class JunkServer: Sendable {
        enum Behaviour: Sendable {
            /// Writes an HTTP response, then closes.
            case answerAndClose
            /// Writes an HTTP response, and keeps the connection open.
            case answerAndHold
            /// Closes at once.
            case close
        }

        let port: Int
        private let listener: TCPListener
        private let held = Lock<[Int32]>([])

        init(_ behaviour: Behaviour) throws {
            listener = try TCPListener()
            port = listener.port
            let (descriptor, held) = (listener.descriptor, held)
            Thread {
                while true {
                    let connection = accept(descriptor, nil, nil)
                    guard connection >= 0 else { return }
                    if behaviour != .close {
                        let answer = Array(
                            "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    }
                    if behaviour == .answerAndHold {
                        held.withLock { $0.append(connection) }
                    } else {
                        Glibc.close(connection)
                    }
                }
            }.start()
        }

        /// Stops listening (which ends the accepting thread) and closes the connections held.
        func stop() {
            shutdown(listener.descriptor, Int32(SHUT_RDWR))
            listener.close()
            for connection in held.withLock({ $0 }) { Glibc.close(connection) }
        }
    }

    extension TestCluster {
        /// Makes `role` log in over TCP with `password` only (SCRAM), the cluster's other logins
        /// staying trusted.
        func requirePassword(role: String, password: String) async throws {
            let admin = try await PostgreSQLDatabase(configuration(database: "postgres"))
            try await admin.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
            let file = "\(directory)/data/pg_hba.conf"
            let rules = try String(contentsOfFile: file, encoding: .utf8)
            // The first matching line decides: this one comes before initdb's trust lines.
            try ("host all \(role) 127.0.0.1/32 scram-sha-256\n" + rules).write(
                toFile: file, atomically: false, encoding: .utf8)
            _ = try await admin.fetchAll("SELECT pg_reload_conf()")
            // The reload is asynchronous: wait until the server reads the new rule.
            try await TestServer.until("the server reads the new rule") {
                try await !admin.fetchAll(
                    "SELECT 1 FROM pg_hba_file_rules WHERE \(String.quotedLiteral(role)) = ANY(user_name)"
                ).isEmpty
            }
            await admin.close()
        }
    }
#endif
