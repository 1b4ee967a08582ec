import Testing

@testable import sqlq

@Suite("PostgreSQL URLs", .onProcessThreads)
struct DatabaseURLTests {
    @Test("Host, port, user, password, database and parameters, percent-decoded")
    func full() throws {
        let url = try DatabaseURL(
            parsing: "postgresql://app%40x:p%3Ass@db.example.com:6543/my%20db?sslmode=verify-full&connect_timeout=3")
        #expect(url.user == "app@x")
        #expect(url.password == "p:ss")
        #expect(url.address == .host("db.example.com", port: 6543))
        #expect(url.database == "my db")
        #expect(url.sslMode == .verifyFull)
        #expect(url.connectTimeout == 3)
        #expect(url.description == "postgresql://app@x@db.example.com:6543/my db")
    }

    @Test("IPv6 hosts, unix sockets, and the defaults")
    func addresses() throws {
        #expect(try DatabaseURL(parsing: "postgres://u@[::1]:5433/d").address == .host("::1", port: 5433))
        #expect(try DatabaseURL(parsing: "postgres://u@[::1]/d").address == .host("::1", port: 5432))
        let socket = try DatabaseURL(parsing: "postgresql://u@/d?host=/tmp/sockets&port=40001")
        #expect(socket.address == .unixSocket(directory: "/tmp/sockets", port: 40001))
        let bare = try DatabaseURL(parsing: "postgresql://u@")
        #expect(bare.address == .unixSocket(directory: "/var/run/postgresql", port: 5432))
        #expect(bare.database == "u")
        #expect(bare.sslMode == .prefer)
        #expect(try DatabaseURL(parsing: "postgresql://u@h/d?sslmode=disable").sslMode == .disable)
        #expect(try DatabaseURL(parsing: "postgresql://u@h/d?sslmode=require").sslMode == .require)
    }

    @Test("A malformed URL names the part at fault, never the password")
    func malformed() {
        let cases: [(String, String)] = [
            ("postgresql://u:secret@h:0/d", "port"),
            ("postgresql://u:secret@h:5432x/d", "port"),
            ("postgresql://u:secret@[::1/d", "host"),
            ("postgresql://u:secret@h/d?sslmode=allow", "sslmode"),
            ("postgresql://u:secret@h/d?sslmode", "query"),
            ("postgresql://u:secret@h/d?options=x", "query"),
            ("postgresql://u:secret@h/d%zz", "database name"),
            ("postgresql://u:secret@h/a/b", "database name"),
            ("postgresql://u:secret@h/d?connect_timeout=0", "connect_timeout"),
            ("postgresql://u:secret@h/d?connect_timeout=2147484", "connect_timeout"),
            ("postgresql://u:secret@h/d?connect_timeout=99999999999", "connect_timeout"),
            ("postgresql://u:secret@h/d?connect_timeout=-1", "connect_timeout"),
        ]
        for (text, part) in cases {
            do {
                _ = try DatabaseURL(parsing: text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.part == part, "\(text)")
                #expect(!error.description.contains("secret"), "\(text)")
                #expect(error.description.contains("u:***@"), "\(text)")
            }
        }
    }

    @Test("Only postgresql:// and postgres:// are PostgreSQL URLs")
    func schemes() {
        #expect(DatabaseURL.isPostgreSQL("postgresql://h"))
        #expect(DatabaseURL.isPostgreSQL("postgres://h"))
        #expect(!DatabaseURL.isPostgreSQL("app.sqlite"))
        #expect(!DatabaseURL.isPostgreSQL("mysql://h/d"))
        #expect(!DatabaseURL.isPostgreSQL("file:postgres://x"))
    }
}
