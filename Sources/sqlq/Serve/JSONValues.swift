#if HTTP
    import SQLite

    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// The JSON encoder of every API answer and event: keys sorted, as `LiveEventStreams` sorts
    /// them, so that `TABLE.json` and an event of `TABLE.sse` are the same bytes.
    enum ServeJSON {
        static func makeEncoder() -> JSONEncoder {
            let encoder = ServeJSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }
    }

    /// A JSON encoder that writes reals as `sqlq query --format json` does, the shortest text
    /// that reads back as the same double, always with a point or an exponent (`3.0`, `-0.0`,
    /// `1e+300`): Foundation's writes `3`, which reads back as an integer. Keys are always sorted
    /// (by their UTF-8 bytes), and slashes never escaped.
    ///
    /// `@unchecked Sendable` as its superclass is: it adds no stored state, and each call of
    /// ``encode(_:)`` builds its tree in local values only.
    final class ServeJSONEncoder: JSONEncoder, @unchecked Sendable {
        override func encode<T: Encodable>(_ value: T) throws -> Data {
            let root = JSONTree()
            try value.encode(to: JSONTreeEncoder(node: root, codingPath: []))
            var bytes: [UInt8] = []
            root.write(to: &bytes)
            return Data(bytes)
        }
    }

    /// One value of the JSON being built: filled in by the containers, written at the end.
    private final class JSONTree {
        enum Kind {
            /// A scalar's JSON text.
            case scalar([UInt8])
            case array([JSONTree])
            case object([String: JSONTree])
        }

        var kind = Kind.scalar(Array("null".utf8))

        init() {}
        init(_ scalar: [UInt8]) { kind = .scalar(scalar) }

        func write(to out: inout [UInt8]) {
            switch kind {
            case .scalar(let bytes): out += bytes
            case .array(let elements):
                out.append(UInt8(ascii: "["))
                for (index, element) in elements.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    element.write(to: &out)
                }
                out.append(UInt8(ascii: "]"))
            case .object(let members):
                out.append(UInt8(ascii: "{"))
                for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
                    .enumerated()
                {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out += Self.string(key)
                    out.append(UInt8(ascii: ":"))
                    members[key]!.write(to: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
        }

        /// A JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
        static func string(_ text: String) -> [UInt8] {
            var out: [UInt8] = [UInt8(ascii: "\"")]
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "\n"): out += Array("\\n".utf8)
                case UInt8(ascii: "\r"): out += Array("\\r".utf8)
                case UInt8(ascii: "\t"): out += Array("\\t".utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
            return out
        }

        /// A real as ``ByteBuffer/appendReal(_:)`` writes it; the infinities, which JSON numbers
        /// cannot hold, are refused as Foundation's encoder refuses them.
        static func real(_ value: Double, _ codingPath: [any CodingKey]) throws -> [UInt8] {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
            }
            return Array(value.description.utf8)
        }

        static func scalar(_ value: some Encodable, _ codingPath: [any CodingKey]) throws -> JSONTree {
            switch value {
            case let value as Bool: return JSONTree(Array((value ? "true" : "false").utf8))
            case let value as String: return JSONTree(string(value))
            case let value as Double: return JSONTree(try real(value, codingPath))
            case let value as Float: return JSONTree(try real(Double(value), codingPath))
            case let value as any BinaryInteger: return JSONTree(Array(String(value).utf8))
            default:
                let node = JSONTree()
                try value.encode(to: JSONTreeEncoder(node: node, codingPath: codingPath))
                return node
            }
        }
    }

    private struct JSONTreeEncoder: Encoder {
        let node: JSONTree
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.kind {} else { node.kind = .object([:]) }
            return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.kind {} else { node.kind = .array([]) }
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }

        private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
            let node: JSONTree
            var codingPath: [any CodingKey]

            private func set(_ child: JSONTree, _ key: Key) {
                guard case .object(var members) = node.kind else { return }
                members[key.stringValue] = child
                node.kind = .object(members)
            }

            mutating func encodeNil(forKey key: Key) throws { set(JSONTree(), key) }
            mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
                set(try JSONTree.scalar(value, codingPath + [key]), key)
            }
            mutating func encode(_ value: Bool, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: String, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Double, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Float, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Int, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(value, key) }
            mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(value, key) }

            private func encode(_ value: some Encodable, _ key: Key) throws {
                set(try JSONTree.scalar(value, codingPath + [key]), key)
            }

            mutating func nestedContainer<NestedKey: CodingKey>(
                keyedBy keyType: NestedKey.Type, forKey key: Key
            ) -> KeyedEncodingContainer<NestedKey> {
                let child = JSONTree()
                set(child, key)
                return JSONTreeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
            }

            mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
                let child = JSONTree()
                set(child, key)
                return JSONTreeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
            }

            mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
            mutating func superEncoder(forKey key: Key) -> any Encoder {
                let child = JSONTree()
                set(child, key)
                return JSONTreeEncoder(node: child, codingPath: codingPath + [key])
            }
        }

        private struct Unkeyed: UnkeyedEncodingContainer {
            let node: JSONTree
            var codingPath: [any CodingKey]
            var count: Int {
                if case .array(let elements) = node.kind { return elements.count }
                return 0
            }

            private func append(_ child: JSONTree) {
                guard case .array(var elements) = node.kind else { return }
                elements.append(child)
                node.kind = .array(elements)
            }

            private var nextPath: [any CodingKey] { codingPath + [AnyKey(stringValue: String(count))] }

            mutating func encodeNil() throws { append(JSONTree()) }
            mutating func encode<T: Encodable>(_ value: T) throws { try encodeScalar(value) }
            mutating func encode(_ value: Bool) throws { try encodeScalar(value) }
            mutating func encode(_ value: String) throws { try encodeScalar(value) }
            mutating func encode(_ value: Double) throws { try encodeScalar(value) }
            mutating func encode(_ value: Float) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int8) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int16) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int32) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int64) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt8) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt16) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt32) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt64) throws { try encodeScalar(value) }
            private func encodeScalar(_ value: some Encodable) throws { append(try JSONTree.scalar(value, nextPath)) }

            mutating func nestedContainer<NestedKey: CodingKey>(
                keyedBy keyType: NestedKey.Type
            ) -> KeyedEncodingContainer<NestedKey> {
                let child = JSONTree()
                defer { append(child) }
                return JSONTreeEncoder(node: child, codingPath: nextPath).container(keyedBy: keyType)
            }

            mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
                let child = JSONTree()
                defer { append(child) }
                return JSONTreeEncoder(node: child, codingPath: nextPath).unkeyedContainer()
            }

            mutating func superEncoder() -> any Encoder {
                let child = JSONTree()
                defer { append(child) }
                return JSONTreeEncoder(node: child, codingPath: nextPath)
            }
        }

        private struct Single: SingleValueEncodingContainer {
            let node: JSONTree
            var codingPath: [any CodingKey]

            mutating func encodeNil() throws { node.kind = .scalar(Array("null".utf8)) }
            mutating func encode<T: Encodable>(_ value: T) throws { try encodeScalar(value) }
            mutating func encode(_ value: Bool) throws { try encodeScalar(value) }
            mutating func encode(_ value: String) throws { try encodeScalar(value) }
            mutating func encode(_ value: Double) throws { try encodeScalar(value) }
            mutating func encode(_ value: Float) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int8) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int16) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int32) throws { try encodeScalar(value) }
            mutating func encode(_ value: Int64) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt8) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt16) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt32) throws { try encodeScalar(value) }
            mutating func encode(_ value: UInt64) throws { try encodeScalar(value) }
            private func encodeScalar(_ value: some Encodable) throws {
                node.kind = try JSONTree.scalar(value, codingPath).kind
            }
        }
    }

    /// A value as `sqlq query --format json` writes it: a number, a string, null, or a blob as
    /// `{"$base64": true, "encoded": "…"}`. An infinity, which JSON numbers cannot hold and this
    /// encoder refuses, is the string `"1e999"` or `"-1e999"`.
    struct JSONCell: Encodable {
        var value: DatabaseValue

        private struct Blob: Encodable {
            var encoded: String
            private enum CodingKeys: String, CodingKey {
                case base64 = "$base64"
                case encoded
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(true, forKey: .base64)
                try container.encode(encoded, forKey: .encoded)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch value {
            case .null: try container.encodeNil()
            case .integer(let integer): try container.encode(integer)
            case .real(let real):
                if real.isFinite {
                    try container.encode(real)
                } else {
                    try container.encode(real < 0 ? "-1e999" : "1e999")
                }
            case .text(let text): try container.encode(text)
            case .blob(let bytes): try container.encode(Blob(encoded: Data(bytes).base64EncodedString()))
            }
        }
    }

    /// A row as an object keyed by its columns' names.
    struct JSONRow: Encodable {
        var columns: [String]
        var values: [DatabaseValue]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            for (column, value) in zip(columns, values) {
                try container.encode(JSONCell(value: value), forKey: AnyKey(stringValue: column))
            }
        }
    }

    /// Facets as `sqlq query --facet … --format json` writes them:
    /// `{"status": {"values": [{"value": "open", "count": 3}], "more": false}}`.
    struct JSONFacets: Encodable {
        var facets: [Facet.Counts]

        init(_ facets: [Facet.Counts]) { self.facets = facets }

        private struct Counts: Encodable {
            var values: [Value]
            var more: Bool
        }

        private struct Value: Encodable {
            var value: JSONCell
            var count: Int64
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            for facet in facets {
                try container.encode(
                    Counts(
                        values: facet.values.map { Value(value: JSONCell(value: $0.value), count: $0.count) },
                        more: facet.hasMore),
                    forKey: AnyKey(stringValue: facet.column))
            }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
#endif
