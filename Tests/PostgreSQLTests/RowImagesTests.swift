import Testing

@testable import PostgreSQL

/// Reading the rows of change notifications, which any role may send: exactly, or not at all.
struct RowImagesTests {
    typealias Column = RowImages.Column

    private func column(_ name: String, _ value: JSONValue) -> Column {
        Column(name: ExactString(name), value: value)
    }

    @Test func aTriggerPayloadIsReadWithItsRows() {
        let payload =
            #""public"."posts" {"n": [{"id": 9223372036854775807, "body": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "user_id": -7}], "o": []}"#
        let event = ChangeListener.event(payload: payload)
        let row = [
            column("id", .number("9223372036854775807")), column("body", .string("a\"\\/\u{8}\u{c}\n\r\té😀")),
            column("user_id", .number("-7")),
        ]
        #expect(event == .changed(schema: "public", table: "posts", rows: RowImages(old: [], new: [row])))
    }

    @Test func valuesOfOtherTypesAreReadWhole() {
        let images = RowImages.parse(
            #"{"o":[{"a":[1,[2,{"x":null}]],"b":{"c":true},"d":false,"e":1.5e-3,"f":null}],"n":[]}"#.utf8[...])
        #expect(
            images?.old == [
                [
                    column("a", .composite), column("b", .composite), column("d", .bool(false)),
                    column("e", .number("1.5e-3")), column("f", .null),
                ]
            ])
    }

    @Test func anythingMalformedIsAChangeOfTheWholeTable() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        let long = #"{"o":[],"n":[{"body":""# + String(repeating: "x", count: 8000) + #""}]}"#
        let malformed = [
            "", "{", "[]", "{}", #"{"o":[]}"#, #"{"n":[]}"#, #"{"o":[],"n":[],"o":[]}"#, #"{"o":[],"n":[],"x":[]}"#,
            #"{"o":[],"n":[{"a":1,"a":2}]}"#, #"{"o":[],"n":[{"a":01}]}"#, #"{"o":[],"n":[{"a":1.}]}"#,
            #"{"o":[],"n":[{"a":-}]}"#, #"{"o":[],"n":[{"a":+1}]}"#, #"{"o":[],"n":[{"a":1,}]}"#,
            #"{"o":[],"n":[1]}"#, #"{"o":[],"n":[{"a":"\u0000"}]}"#, #"{"o":[],"n":[{"a":"\ud800"}]}"#,
            #"{"o":[],"n":[{"a":"\udc00"}]}"#, #"{"o":[],"n":[{"a":"\x"}]}"#,
            #"{"o":[],"n":[{"a":"tab"# + "\t" + #""}]}"#,
            #"{"o":[],"n":[{"a":tru}]}"#, #"{"o":[],"n":[]} x"#, #"{"o":[],"n":[{"a":"#,
            #"{"o":[],"n":[{"a":"# + deep + "}]}", long,
        ]
        for json in malformed {
            #expect(RowImages.parse(json.utf8[...]) == nil, "\(json.prefix(60))")
            #expect(
                ChangeListener.event(payload: #""public"."posts" "# + json)
                    == .changed(schema: "public", table: "posts", rows: nil), "\(json.prefix(60))")
        }
        // Keys match by their bytes: these two differ only in Unicode normalization.
        #expect(RowImages.parse("{\"o\":[],\"n\":[{\"\u{E9}\":1,\"e\u{301}\":2}]}".utf8[...]) != nil)
    }

    @Test func aRowFitsItsLayoutExactlyOrNotAtAll() {
        let layout = TableLayout(
            qualifiedName: #""public"."posts""#,
            columns: [
                ("id", "int8", nil, true), ("user_id", "int4", nil, true), ("body", "text", "default", true),
                ("at", "timestamptz", nil, true),
            ])
        func changes(_ json: String) -> [DatabaseChanges.RowChange]? {
            RowImages.parse(json.utf8[...]).flatMap(layout.rowChanges)
        }
        #expect(
            changes(#"{"o":[{"at":"2024-01-01","body":null,"id":-9223372036854775808,"user_id":3}],"n":[]}"#)
                == [DatabaseChanges.RowChange(old: [.integer(.min), .integer(3), .null, .null], new: nil)])
        #expect(
            changes(#"{"o":[],"n":[{"at":null,"body":"x","id":1,"user_id":null}]}"#)
                == [DatabaseChanges.RowChange(old: nil, new: [.integer(1), .null, .text("x"), .null])])
        let unfit = [
            // A column missing, one more, one renamed.
            #"{"o":[],"n":[{"body":"x","id":1,"user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":1,"user_id":1,"extra":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":1,"User_id":1}]}"#,
            // Beyond int8, not an integer, of another type.
            #"{"o":[],"n":[{"at":null,"body":"x","id":9223372036854775808,"user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":1.0,"user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":1e2,"user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":"1","user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":1,"id":1,"user_id":1}]}"#,
            #"{"o":[],"n":[{"at":null,"body":"x","id":true,"user_id":1}]}"#,
        ]
        for json in unfit { #expect(changes(json) == nil, "\(json)") }
    }
}
