#if HTTP
    import ArgumentParser

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// A table view's state, as its query string holds it, so that a view can be shared as a URL:
    /// `?where=priority >= 3&sort=-due&columns=id,title&facet=list_id&search=milk&after=k…&size=50`,
    /// and `count=false` to skip counting the matching rows. `where`, `sort`, `columns` and `facet`
    /// repeat; the others may appear once.
    struct ViewParameters: Hashable, Sendable {
        var filters: [String] = []
        var sort: [String] = []
        var columns: [String] = []
        var facets: [String] = []
        var search: String?
        /// Where the page starts: a ``PageToken`` from a previous page's `next`.
        var after: String?
        var size = Self.defaultSize
        /// Whether the page holds the count of every matching row: `count=false` skips it, which
        /// saves a scan of the matching rows (or of their index) on each request.
        var count = true

        static let defaultSize = 50
        /// The most rows one page holds.
        static let maximumSize = 1_000

        /// The parameters of a decoded query string; unknown names, repeats of the single ones
        /// and malformed values are a ``ServeError``.
        init(_ pairs: [(name: String, value: String)]) throws {
            var seen: Set<String> = []
            for (name, value) in pairs {
                switch name {
                case "where": if !value.isEmpty { filters.append(value) }
                case "sort": if !value.isEmpty { sort.append(value) }
                case "columns": if !value.isEmpty { columns.append(value) }
                case "facet": if !value.isEmpty { facets.append(value) }
                case "search", "after", "size", "count":
                    guard seen.insert(name).inserted else {
                        throw ServeError(.badRequest, "\(name)= is given more than once; give it once")
                    }
                    switch name {
                    case "search": search = value.isEmpty ? nil : value
                    case "after": after = value.isEmpty ? nil : value
                    case "count":
                        switch value {
                        case "true": count = true
                        case "false": count = false
                        default:
                            throw ServeError(
                                .badRequest,
                                "count= takes true (count the matching rows, the default) or false (skip the count); \"\(value)\" is neither"
                            )
                        }
                    default:
                        guard let size = Int(value), (1...Self.maximumSize).contains(size) else {
                            throw ServeError(
                                .badRequest,
                                "size= takes a number of rows from 1 to \(Self.maximumSize); \"\(value)\" is not one")
                        }
                        self.size = size
                    }
                default:
                    throw ServeError(
                        .badRequest,
                        "unknown parameter \"\(name)\"; a table view takes where, sort, columns, facet, search, after, size and count"
                    )
                }
            }
        }

        init() {}

        /// The options of `sqlq query` that make this view's query, with one row more than a page
        /// to tell whether another page follows, from row `offset` on.
        func queryArguments(table: String, offset: Int) -> [String] {
            var arguments: [String] = []
            for filter in filters { arguments += ["--where", filter] }
            for sort in sort { arguments += ["--sort", sort] }
            for columns in columns { arguments += ["--columns=" + columns] }
            for facet in facets { arguments += ["--facet", facet] }
            if let search { arguments += ["--search", search] }
            arguments += ["--limit", String(size + 1), "--offset", String(offset)]
            // After "--", a table named like an option is still the table.
            return arguments + ["--", table]
        }

        /// The query string of this view, with `change` applied first: names in a fixed order,
        /// values percent-encoded.
        func query(_ change: (inout ViewParameters) -> Void = { _ in }) -> String {
            var parameters = self
            change(&parameters)
            var pairs: [(String, String)] = []
            pairs += parameters.filters.map { ("where", $0) }
            pairs += parameters.sort.map { ("sort", $0) }
            pairs += parameters.columns.map { ("columns", $0) }
            pairs += parameters.facets.map { ("facet", $0) }
            if let search = parameters.search { pairs.append(("search", search)) }
            if let after = parameters.after { pairs.append(("after", after)) }
            if parameters.size != Self.defaultSize { pairs.append(("size", String(parameters.size))) }
            if !parameters.count { pairs.append(("count", "false")) }
            if pairs.isEmpty { return "" }
            return "?" + pairs.map { QueryString.encode($0) + "=" + QueryString.encode($1) }.joined(separator: "&")
        }
    }

    /// `application/x-www-form-urlencoded`, as a browser's GET form writes it.
    enum QueryString {
        /// The pairs of a query string, decoded: `+` is a space, `%HH` a byte; bytes that are not
        /// UTF-8, or a `%` not followed by two hexadecimal digits, are a ``ServeError``.
        static func decode(_ query: String?) throws -> [(name: String, value: String)] {
            guard let query, !query.isEmpty else { return [] }
            return try query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (try decodeComponent(parts[0]), parts.count > 1 ? try decodeComponent(parts[1]) : "")
            }
        }

        static func decodeComponent(_ text: Substring) throws -> String {
            var bytes: [UInt8] = []
            var iterator = text.utf8.makeIterator()
            func hex(_ byte: UInt8?) -> UInt8? {
                switch byte {
                case let byte? where byte >= 0x30 && byte <= 0x39: byte - 0x30
                case let byte? where (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66: (byte | 0x20) - 0x61 + 10
                default: nil
                }
            }
            while let byte = iterator.next() {
                switch byte {
                case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
                case UInt8(ascii: "%"):
                    guard let high = hex(iterator.next()), let low = hex(iterator.next()) else {
                        throw ServeError(
                            .badRequest, "the URL has a % that is not followed by two hexadecimal digits: \"\(text)\"")
                    }
                    bytes.append(high << 4 | low)
                default: bytes.append(byte)
                }
            }
            guard let string = String(validating: bytes, as: UTF8.self) else {
                throw ServeError(.badRequest, "the URL holds bytes that are not UTF-8: \"\(text)\"")
            }
            return string
        }

        /// Percent-encodes everything but the unreserved characters of RFC 3986.
        static func encode(_ text: String) -> String {
            var encoded = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    let digits = Array("0123456789ABCDEF".unicodeScalars)
                    encoded += "%"
                    encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                    encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
                }
            }
            return encoded
        }
    }
#endif
