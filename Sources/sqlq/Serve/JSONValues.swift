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
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
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
