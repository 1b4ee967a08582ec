// What makes two keys equal, whatever their database: each source builds its keys' paths from
// these, so that equal queries share one cached value.

/// What makes two SQL keys equal: the same kind of fetch, row type, SQL and arguments. One value
/// rather than a path of four, so that a key is cheap to build, hash and compare.
package struct SQLKeyIdentity: Hashable, Sendable, CustomStringConvertible {
    let kind: String
    let type: Any.Type
    let sql: String
    let arguments: [DatabaseValue]

    package init(kind: String, type: Any.Type, sql: String, arguments: [DatabaseValue]) {
        self.kind = kind
        self.type = type
        self.sql = sql
        self.arguments = arguments
    }

    // SQL and text arguments compare by their bytes, as SQLite reads them: `"\u{E9}"` and
    // `"e\u{301}"` match other rows.

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.type == rhs.type && lhs.sql.hasSameBytes(as: rhs.sql) && lhs.arguments.count == rhs.arguments.count
            && zip(lhs.arguments, rhs.arguments).allSatisfy { $0.isIdentical(to: $1) } && lhs.kind == rhs.kind
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
        sql.hashBytes(into: &hasher)
        hasher.combine(arguments.count)
        for argument in arguments { argument.hashIdentity(into: &hasher) }
        hasher.combine(kind)
    }

    package var description: String {
        "\(kind) \(type): \(sql)" + (arguments.isEmpty ? "" : " \(arguments)")
    }
}

/// What makes two `.fetch` keys equal: equal requests, of the same type.
package struct FetchKeyIdentity<Request: FetchKeyRequest>: Hashable, Sendable, CustomStringConvertible {
    let request: Request

    package init(request: Request) { self.request = request }

    package var description: String { "fetch \(request)" }
}
