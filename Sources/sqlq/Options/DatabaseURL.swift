#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL connection URL, as libpq writes them:
/// `postgresql://user:password@host:port/database?sslmode=require`, `postgres://` alike, and
/// `postgresql://user@/database?host=/socket/folder` for a unix socket.
///
/// Parsed without the PostgreSQL module, so that a sqlq built without it still tells a URL from
/// a file name, and says so.
struct DatabaseURL: Equatable, Sendable {
    /// Where the server is.
    enum Address: Equatable, Sendable {
        case host(String, port: Int)
        /// The folder of the server's socket file, `.s.PGSQL.<port>`.
        case unixSocket(directory: String, port: Int)
    }

    /// libpq's `sslmode`, for the values the PostgreSQL module has.
    enum SSLMode: String, CaseIterable, Sendable {
        case disable
        case prefer
        case require
        case verifyFull = "verify-full"
    }

    var user: String
    var password: String?
    var address: Address
    var database: String
    var sslMode: SSLMode = .prefer
    /// How long a connection may take before sqlq gives up: `connect_timeout`, 10 s by default.
    var connectTimeout = 10
    /// How long a statement waits for a lock another session holds: the command's `--timeout`,
    /// in seconds; not part of the URL.
    var timeout = DatabaseOptions.defaultTimeout

    /// The port PostgreSQL listens on unless told otherwise.
    static let defaultPort = 5432
    /// Where Debian's and Ubuntu's servers put their socket, libpq's default there.
    static let defaultSocketDirectory = "/var/run/postgresql"

    /// Whether `text` is a PostgreSQL URL rather than a file name.
    static func isPostgreSQL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses `text`. The password is the URL's, else `$PGPASSWORD`; the user the URL's, else
    /// `$PGUSER`, else `$USER`; the database the URL's, else the user's name, as libpq does.
    init(parsing text: String) throws(DatabaseURLError) {
        func fail(_ part: String, _ reason: String) -> DatabaseURLError {
            DatabaseURLError(url: Self.redacted(text), part: part, reason: reason)
        }
        guard let schemeEnd = text.firstRange(of: "://"), Self.isPostgreSQL(text) else {
            throw fail("scheme", "a PostgreSQL URL starts with postgresql:// or postgres://")
        }
        var rest = Substring(text[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = try Self.decode(credentials[..<colon], part: "user name", url: text)
                password = try Self.decode(credentials[credentials.index(after: colon)...], part: "password", url: text)
            } else {
                user = try Self.decode(credentials, part: "user name", url: text)
            }
        }
        var host: String?
        var portText: Substring?
        if rest.hasPrefix("[") {
            // An IPv6 address: [::1]:5432.
            guard let close = rest.firstIndex(of: "]") else { throw fail("host", "an IPv6 address lacks its \"]\"") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("host", "\"\(after)\" follows the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = try Self.decode(rest[..<colon], part: "host", url: text)
            portText = rest[rest.index(after: colon)...]
        } else if !rest.isEmpty {
            host = try Self.decode(rest, part: "host", url: text)
        }
        if host?.isEmpty == true { host = nil }
        var port = Self.defaultPort
        func parsePort(_ text: Substring) throws(DatabaseURLError) -> Int {
            guard let port = Int(text), (1...65_535).contains(port) else {
                throw fail("port", "\"\(text)\" is not a port number from 1 to 65535")
            }
            return port
        }
        if let portText { port = try parsePort(portText) }
        var database = path.isEmpty ? nil : try Self.decode(path, part: "database name", url: text)
        if database?.contains("/") == true {
            throw fail("database name", "\"\(database ?? "")\" holds a \"/\"")
        }
        var socketDirectory: String?
        var sslMode = SSLMode.prefer
        var connectTimeout = 10
        for parameter in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = parameter.firstIndex(of: "=") else {
                throw fail("query", "\"\(parameter)\" has no value (write name=value)")
            }
            let name = String(parameter[..<equals])
            let value = try Self.decode(parameter[parameter.index(after: equals)...], part: name, url: text)
            switch name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw fail(
                        "sslmode",
                        "\"\(value)\" is not one of " + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                sslMode = mode
            case "host":
                if value.hasPrefix("/") { socketDirectory = value } else { host = value }
            case "port": port = try parsePort(Substring(value))
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "connect_timeout":
                // At most --timeout's maximum, about 24 days: a number of seconds the connection's
                // timer can hold.
                let maximum = Int(DatabaseOptions.maximumTimeout)
                guard let seconds = Int(value), (1...maximum).contains(seconds) else {
                    throw fail("connect_timeout", "\"\(value)\" is not a whole number of seconds from 1 to \(maximum)")
                }
                connectTimeout = seconds
            default:
                throw fail(
                    "query",
                    "unknown parameter \"\(name)\"; sqlq knows sslmode, host, port, user, password, dbname "
                        + "and connect_timeout")
            }
        }
        if let directory = socketDirectory {
            address = .unixSocket(directory: directory, port: port)
        } else if let host {
            address = .host(host, port: port)
        } else {
            address = .unixSocket(directory: Self.defaultSocketDirectory, port: port)
        }
        self.user = user ?? Self.environment("PGUSER") ?? Self.environment("USER") ?? "postgres"
        self.password = password ?? Self.environment("PGPASSWORD")
        self.database = database ?? self.user
        self.sslMode = sslMode
        self.connectTimeout = connectTimeout
    }

    /// How the URL shows in messages: without its password.
    var description: String {
        let place =
            switch address {
            case .host(let host, let port): (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
            case .unixSocket(let directory, let port): "\(directory)/.s.PGSQL.\(port)"
            }
        return "postgresql://\(user)@\(place)/\(database)"
    }

    /// `text` with the password between `:` and `@` replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return text
        }
        return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
    }

    /// Percent-decoding, refusing a bad escape or bytes that are not UTF-8.
    private static func decode(_ text: Substring, part: String, url: String) throws(DatabaseURLError) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            let digits = utf8.prefix(2)
            guard digits.count == 2, let value = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else {
                throw DatabaseURLError(
                    url: redacted(url), part: part, reason: "a \"%\" is not followed by two hexadecimal digits")
            }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw DatabaseURLError(url: redacted(url), part: part, reason: "its escapes are not UTF-8")
        }
        return decoded
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }
}

/// A malformed PostgreSQL URL: which part is wrong, and why. A usage error (exit status 2).
struct DatabaseURLError: Error, CustomStringConvertible {
    /// The URL as given, its password hidden.
    var url: String
    /// The part at fault: "port", "host", "sslmode"…
    var part: String
    var reason: String

    var description: String {
        "malformed PostgreSQL URL \"\(url)\": the \(part) is wrong: \(reason)"
    }
}
