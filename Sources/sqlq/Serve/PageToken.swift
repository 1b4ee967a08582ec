#if HTTP
    import SQLite

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// Where a page of a table view starts: the `after=` token of the page before's `next`.
    /// Opaque to clients, which pass on the token a page gives them.
    ///
    /// - `k…`, a keyset token: the values of the view's sort keys and tiebreaker in the last row
    ///   of the page before, so the page starts right after that row whatever was written
    ///   meanwhile. Base64url of a version byte, a fingerprint of the view's order, the values
    ///   (each a type tag and its bytes: integers and the bits of reals exactly, text and blobs
    ///   with their length) and an FNV-1a checksum, which catches a damaged or edited token (it
    ///   is no signature: a forged token is only another position in the same order).
    /// - `o…`, an offset token (`o50`): the number of rows before the page, for the views that
    ///   cannot page by keyset (see ``KeysetOrder``).
    /// - `o….…`, a keyset view's offset token (`o50.1a2b3c4d`): the number of rows before the
    ///   page and the fingerprint of the view's order, for the page after a row whose keys are
    ///   too long for a keyset token.
    ///
    /// Each kind pages only its kind of view: a keyset view refuses a plain offset, which would
    /// count rows in another order, and an offset view refuses both tokens of a keyset view.
    enum PageToken: Hashable, Sendable {
        case offset(Int)
        case keyset(fingerprint: UInt32, values: [DatabaseValue])
        case keysetOffset(fingerprint: UInt32, offset: Int)

        /// The longest token read, in characters: every decoded size is bounded by it.
        static let maximumLength = 8_192
        /// The most values a keyset token holds.
        static let maximumValues = 16
        private static let version: UInt8 = 1

        private enum Tag: UInt8 {
            case null, integer, real, text, blob
        }

        /// The token as `after=` takes it.
        var text: String {
            switch self {
            case .offset(let offset): return "o" + String(offset)
            case .keysetOffset(let fingerprint, let offset):
                let hex = String(fingerprint, radix: 16)
                return "o" + String(offset) + "." + String(repeating: "0", count: 8 - hex.utf8.count) + hex
            case .keyset(let fingerprint, let values):
                var bytes: [UInt8] = [Self.version]
                Self.append(fingerprint, to: &bytes)
                bytes.append(UInt8(values.count))
                for value in values {
                    switch value {
                    case .null: bytes.append(Tag.null.rawValue)
                    case .integer(let integer):
                        bytes.append(Tag.integer.rawValue)
                        Self.append(UInt64(bitPattern: integer), to: &bytes)
                    case .real(let real):
                        bytes.append(Tag.real.rawValue)
                        Self.append(real.bitPattern, to: &bytes)
                    case .text(let text):
                        bytes.append(Tag.text.rawValue)
                        Self.append(UInt32(truncatingIfNeeded: text.utf8.count), to: &bytes)
                        bytes += text.utf8
                    case .blob(let blob):
                        bytes.append(Tag.blob.rawValue)
                        Self.append(UInt32(truncatingIfNeeded: blob.count), to: &bytes)
                        bytes += blob
                    }
                }
                Self.append(Self.checksum(bytes), to: &bytes)
                return "k" + Self.base64URL(bytes)
            }
        }

        /// The token `text` holds, or a ``ServeError`` that says what is wrong with it.
        init(_ text: String) throws {
            guard text.utf8.count <= Self.maximumLength else {
                throw ServeError(
                    .badRequest,
                    "after= is too long to be a page token: \(text.utf8.count) bytes, at most \(Self.maximumLength); use the next token a page gives"
                )
            }
            func malformed() -> ServeError {
                ServeError(
                    .badRequest,
                    "after= is not a page token of this server: \"\(text)\"; use the next token a page gives, or leave it out for the first page"
                )
            }
            switch text.first {
            case "o":
                let parts = text.utf8.dropFirst().split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
                let digits = parts[0]
                guard parts.count <= 2, !digits.isEmpty, digits.count <= 18,
                    digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let offset = Int(String(decoding: digits, as: UTF8.self))
                else { throw malformed() }
                guard parts.count == 2 else {
                    self = .offset(offset)
                    return
                }
                let hex = parts[1]
                guard hex.count == 8, hex.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
                    let fingerprint = UInt32(String(decoding: hex, as: UTF8.self), radix: 16)
                else { throw malformed() }
                self = .keysetOffset(fingerprint: fingerprint, offset: offset)
            case "k":
                guard let bytes = Self.decodeBase64URL(text.utf8.dropFirst()), bytes.count >= 10 else {
                    throw malformed()
                }
                guard Self.checksum(bytes.dropLast(4)) == Self.readUInt32(bytes, at: bytes.count - 4) else {
                    throw ServeError(
                        .badRequest,
                        "after= is a damaged page token: its checksum does not match its contents; use the next token a page gives"
                    )
                }
                guard bytes[0] == Self.version else { throw malformed() }
                let fingerprint = Self.readUInt32(bytes, at: 1)
                let count = Int(bytes[5])
                guard count <= Self.maximumValues else {
                    throw ServeError(
                        .badRequest,
                        "after= holds \(count) values; a page token holds at most \(Self.maximumValues)")
                }
                let end = bytes.count - 4
                var position = 6
                var values: [DatabaseValue] = []
                for _ in 0..<count {
                    guard position < end, let tag = Tag(rawValue: bytes[position]) else { throw malformed() }
                    position += 1
                    switch tag {
                    case .null: values.append(.null)
                    case .integer, .real:
                        guard end - position >= 8 else { throw malformed() }
                        let bits = Self.readUInt64(bytes, at: position)
                        position += 8
                        if tag == .integer {
                            values.append(.integer(Int64(bitPattern: bits)))
                        } else {
                            // SQLite stores no NaN (it reads one as NULL), so no row holds one.
                            let real = Double(bitPattern: bits)
                            guard !real.isNaN else { throw malformed() }
                            values.append(.real(real))
                        }
                    case .text, .blob:
                        guard end - position >= 4 else { throw malformed() }
                        let length = Int(Self.readUInt32(bytes, at: position))
                        position += 4
                        guard end - position >= length else { throw malformed() }
                        let content = Array(bytes[position..<position + length])
                        position += length
                        if tag == .blob {
                            values.append(.blob(content))
                        } else {
                            guard let text = String(validating: content, as: UTF8.self) else { throw malformed() }
                            values.append(.text(text))
                        }
                    }
                }
                guard position == end else { throw malformed() }
                self = .keyset(fingerprint: fingerprint, values: values)
            default:
                throw malformed()
            }
        }

        /// The number of rows before the page: an offset token's; 0 for a keyset token, whose
        /// page starts after a row instead.
        var rowsBefore: Int {
            switch self {
            case .offset(let offset), .keysetOffset(_, let offset): offset
            case .keyset: 0
            }
        }

        /// FNV-1a, 32 bits: the same on every run and machine, unlike `Hasher`.
        static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
            var hash: UInt32 = 0x811C_9DC5
            for byte in bytes {
                hash ^= UInt32(byte)
                hash &*= 0x0100_0193
            }
            return hash
        }

        private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
            let size = MemoryLayout.size(ofValue: value)
            for index in (0..<size).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (index * 8))) }
        }

        private static func readUInt32(_ bytes: [UInt8], at position: Int) -> UInt32 {
            bytes[position..<position + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        private static func readUInt64(_ bytes: [UInt8], at position: Int) -> UInt64 {
            bytes[position..<position + 8].reduce(0) { $0 << 8 | UInt64($1) }
        }

        private static func base64URL(_ bytes: [UInt8]) -> String {
            var text = Data(bytes).base64EncodedString()
            while text.last == "=" { text.removeLast() }
            return String(
                text.map { character -> Character in
                    switch character {
                    case "+": "-"
                    case "/": "_"
                    default: character
                    }
                })
        }

        private static func decodeBase64URL(_ text: Substring.UTF8View) -> [UInt8]? {
            var base64 = ""
            for byte in text {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    base64.unicodeScalars.append(Unicode.Scalar(byte))
                case UInt8(ascii: "-"): base64 += "+"
                case UInt8(ascii: "_"): base64 += "/"
                default: return nil
                }
            }
            guard base64.utf8.count % 4 != 1 else { return nil }
            base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
            return Data(base64Encoded: base64).map(Array.init)
        }
    }

    /// The order of a table view that pages by keyset: its sort keys, then a tiebreaker that makes
    /// it total (the rowid, or a `WITHOUT ROWID` table's primary key), and the condition that
    /// keeps the rows after a given one in that order, exactly as SQLite orders them.
    ///
    /// A view pages by offset instead when its order has no tiebreaker (a view of SQL, a table
    /// whose rowid every alias of names a column), when it sorts by a foreign-key path or a
    /// search's rank (a subquery or a function, whose values a token cannot pin down as the
    /// table's own columns), or when it has more than ``PageToken/maximumValues`` distinct keys.
    struct KeysetOrder: Hashable, Sendable {
        struct Key: Hashable, Sendable {
            /// A column of the table, with the collation of the primary key for a tiebreaker
            /// of a `WITHOUT ROWID` table: compared exactly as `ORDER BY` compares it.
            var expression: SQLExpression
            var descending: Bool
            /// The rowid: a token's value must be an integer.
            var isRowID = false
            /// A primary-key column of a `WITHOUT ROWID` table: never NULL.
            var isNotNull = false
        }

        /// The sort keys, each column once, then the tiebreaker.
        var keys: [Key]
        /// The `ORDER BY` the rows' query takes: the view's own, then the tiebreaker.
        var orderings: [SQLOrdering]
        /// Ties a token to this order: a token of another sort or table is refused.
        var fingerprint: UInt32

        /// The order of `query`, on a table whose `INTEGER PRIMARY KEY` is `rowIDColumn`; or why
        /// its view pages by offset.
        static func make(
            _ query: TableQuery, searched: Bool, rowIDColumn: String?, db: Database
        ) throws -> Result<KeysetOrder, Reason> {
            let table = query.request.tableName
            var orderings = query.request.select.orderings
            var keys: [Key] = []
            for ordering in orderings {
                guard case .column(let name) = ordering.expression.node else {
                    return .failure(searched && orderings.count == 1 ? .rank : .foreignKeyPath)
                }
                if keys.contains(where: {
                    if case .column(let other) = $0.expression.node { other.sqliteNameMatches(name) } else { false }
                }) {
                    // A column sorted by again never decides the order.
                    continue
                }
                keys.append(Key(expression: ordering.expression, descending: ordering.direction == .descending))
            }
            let type = try db.fetchOne(String.self, "SELECT type FROM sqlite_master WHERE name = ?", [.text(table)])
            guard type == "table" else { return .failure(.noRowID) }
            let sortsByRowID =
                rowIDColumn.map { rowID in
                    keys.contains {
                        if case .column(let name) = $0.expression.node { name.sqliteNameMatches(rowID) } else { false }
                    }
                } ?? false
            // The rowid itself where a name reads it: an INTEGER PRIMARY KEY DESC is no alias of it.
            if !sortsByRowID, let rowID = try Self.rowIDAlias(of: table, in: db) ?? rowIDColumn {
                keys.append(Key(expression: Column(rowID).sqlExpression, descending: false, isRowID: true))
                orderings.append(Column(rowID).asc)
            } else if !sortsByRowID {
                let primaryKey = try Self.withoutRowIDKey(of: table, in: db)
                guard !primaryKey.isEmpty else { return .failure(.noRowID) }
                for key in primaryKey {
                    keys.append(Key(expression: key, descending: false, isNotNull: true))
                    orderings.append(key.asc)
                }
            }
            guard keys.count <= PageToken.maximumValues else { return .failure(.tooManyKeys) }
            var description = Array(table.utf8)
            for key in keys {
                description += [0] + Array(key.expression.sql.utf8) + Array((key.descending ? " DESC" : " ASC").utf8)
            }
            return .success(
                KeysetOrder(keys: keys, orderings: orderings, fingerprint: PageToken.checksum(description)))
        }

        /// Why a view pages by offset.
        enum Reason: Error, Hashable, Sendable {
            case noRowID, foreignKeyPath, rank, tooManyKeys

            /// Refuses a token of a keyset view, whose keys or offset this view's order cannot use.
            func check(_ token: PageToken?) throws {
                switch token {
                case .keyset, .keysetOffset:
                    throw ServeError(
                        .badRequest,
                        "after= is a keyset page token, but this view pages by offset: \(description); use the next token a page gives"
                    )
                case .offset, nil: return
                }
            }

            var description: String {
                switch self {
                case .noRowID: "it has no rowid or primary key to break ties"
                case .foreignKeyPath: "it sorts by a foreign-key path"
                case .rank: "it sorts a search by rank"
                case .tooManyKeys:
                    "it sorts by more columns than a page token holds (\(PageToken.maximumValues), with the tiebreaker)"
                }
            }
        }

        /// A name that reads the rowid of `table`, unless every one names a column or the table
        /// has none (`WITHOUT ROWID`).
        private static func rowIDAlias(of table: String, in db: Database) throws -> String? {
            let columns = try db.fetchAll("SELECT name FROM pragma_table_xinfo(?)", [.text(table)]).map {
                try $0[0] as String
            }
            guard
                let alias = ["rowid", "_rowid_", "oid"].first(where: { alias in
                    !columns.contains { $0.sqliteNameMatches(alias) }
                })
            else { return nil }
            do {
                _ = try db.makeStatement(
                    "SELECT \(String.quotedIdentifier(alias)) FROM \(String.quotedIdentifier(table)) LIMIT 0")
                return alias
            } catch is SQLiteError {
                return nil
            }
        }

        /// The primary key of a `WITHOUT ROWID` table, each column under the key's collation, so
        /// that the order is total exactly where the key is unique.
        private static func withoutRowIDKey(of table: String, in db: Database) throws -> [SQLExpression] {
            guard
                let index = try db.fetchOne(
                    String.self, "SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", [.text(table)])
            else { return [] }
            return try db.fetchAll(
                "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(index)]
            ).map { row in
                let name: String = try row[0]
                let collation: String = try row[1]
                return SQLExpression(
                    SQLFragment([.identifier(name), .sql(" COLLATE "), .foreignIdentifier(collation)]),
                    precedence: .atom)
            }
        }

        /// The condition that starts the page where `token` says, checked against this order:
        /// after a keyset token's row, nil for no token or a keyset view's offset (which the
        /// query's offset applies). A plain offset token is refused: its rows were counted in
        /// another order, or by hand, and would silently give another page.
        func condition(for token: PageToken?) throws -> SQLExpression? {
            switch token {
            case nil: return nil
            case .keyset(let fingerprint, let values): return condition(after: try self.values(of: fingerprint, values))
            case .keysetOffset(let fingerprint, _):
                try self.values(of: fingerprint, nil)
                return nil
            case .offset:
                throw ServeError(
                    .badRequest,
                    "after= is an offset page token, but this view pages by keyset, so a page starts after a row, not at a number of rows; use the next token a page gives, or leave it out for the first page"
                )
            }
        }

        /// The values of a token, checked against this order; nil values check the fingerprint only.
        @discardableResult
        func values(of fingerprint: UInt32, _ values: [DatabaseValue]?) throws -> [DatabaseValue] {
            guard fingerprint == self.fingerprint else {
                throw ServeError(
                    .badRequest,
                    "after= is a page token of another view, sorted otherwise; a token pages only the sort it came from, so start from the first page"
                )
            }
            guard let values else { return [] }
            guard values.count == keys.count else {
                throw ServeError(
                    .badRequest,
                    "after= holds \(values.count) value\(values.count == 1 ? "" : "s"), but this view's order has \(keys.count) keys; use the next token a page gives"
                )
            }
            for (key, value) in zip(keys, values) {
                if key.isRowID, case .integer = value { continue }
                if key.isRowID || (key.isNotNull && value == .null) {
                    throw ServeError(
                        .badRequest,
                        "after= holds \(value) for \(key.expression.sql), which is \(key.isRowID ? "an integer" : "never null"); use the next token a page gives"
                    )
                }
            }
            return values
        }

        /// The rows after the one whose keys hold `values`, in this order: for each key, the rows
        /// equal on the keys before it (`IS`, which matches NULL) and after on it. SQLite puts
        /// NULL first ascending and last descending, and compares the column with the value
        /// under the column's collation, as `ORDER BY` does.
        func condition(after values: [DatabaseValue]) -> SQLExpression {
            var alternatives: [[SQLFragment.Segment]] = []
            for index in keys.indices {
                var terms: [[SQLFragment.Segment]] = []
                for before in 0..<index {
                    terms.append(keys[before].expression.fragment.segments + [.sql(" IS "), .binding(values[before])])
                }
                let key = keys[index].expression.fragment.segments
                switch (keys[index].descending, values[index]) {
                case (false, .null): terms.append(key + [.sql(" IS NOT NULL")])
                case (false, let value): terms.append(key + [.sql(" > "), .binding(value)])
                // Nothing sorts after NULL descending but other NULLs, which the next keys order.
                case (true, .null): continue
                case (true, let value):
                    terms.append(
                        [.sql("(")] + key + [.sql(" < "), .binding(value), .sql(" OR ")] + key + [.sql(" IS NULL)")])
                }
                alternatives.append(Array(terms.joined(separator: [.sql(" AND ")])))
            }
            guard !alternatives.isEmpty else { return SQLExpression(SQLFragment([.sql("0")]), precedence: .atom) }
            let segments: [SQLFragment.Segment] =
                [.sql("(")] + alternatives.map { [.sql("(")] + $0 + [.sql(")")] }.joined(separator: [.sql(" OR ")])
                + [.sql(")")]
            return SQLExpression(SQLFragment(segments), precedence: .atom)
        }
    }
#endif
