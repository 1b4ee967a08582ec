import Foundation
import Glibc
import SQLite
import Testing

@testable import sqlq

@Suite("CSV reader", .onProcessThreads)
struct CSVReaderTests {
    private func records(_ text: String) throws -> [ImportRecord] {
        var reader = try CSVReader(bytes: Array(text.utf8), file: "f.csv")
        var records: [ImportRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    private func error(_ text: String) -> ImportError? {
        do {
            _ = try records(text)
            return nil
        } catch {
            return error as? ImportError
        }
    }

    @Test("RFC 4180: quoted commas, doubled quotes and line breaks; CRLF or LF")
    func quoting() throws {
        let records = try records("a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n2,\"two\nlines\",\n3,,\"\"\n")
        #expect(records.map(\.line) == [2, 3, 5])
        #expect(records[0].columns == ["a", "b", "c"])
        #expect(records[0].values == [.text("1"), .text("x, y"), .text("say \"hi\"")])
        #expect(records[1].values == [.text("2"), .text("two\nlines"), .null])
        #expect(records[2].values == [.text("3"), .null, .text("")])
    }

    @Test("A byte order mark and blank lines are skipped; the last line may lack its line break")
    func lenience() throws {
        let records = try records("\u{FEFF}a,b\n\n1,2\n\n3,4")
        #expect(records[0].columns == ["a", "b"])
        #expect(records.map(\.values) == [[.text("1"), .text("2")], [.text("3"), .text("4")]])
        #expect(records.map(\.line) == [3, 5])
    }

    @Test("In a one-column file an empty line is a NULL, never skipped")
    func oneColumn() throws {
        let records = try records("x\r\n\r\na\r\n\r\n\"\"\r\n\n")
        #expect(records.map(\.values) == [[.null], [.text("a")], [.null], [.text("")], [.null]])
        #expect(records.map(\.line) == [2, 3, 4, 5, 6])
    }

    @Test("Bad rows name their line")
    func errors() {
        #expect(error("a,b\n1,2\n1,2,3\n")?.line == 3)
        #expect(error("a,b\n1,2\n1,2,3\n")?.message == "3 fields, but the header has 2 columns")
        #expect(error("a,b\n1,\"open\n2,3\n")?.line == 2)
        #expect(error("a,b\n1,\"open\n2,3\n")?.message == "a quoted field is never closed")
        #expect(error("a,b\n1,2\n1,x\"y\n")?.line == 3)
        #expect(error("a,b\n\"1\"x,2\n")?.line == 2)
        #expect(error("a,,c\n")?.message == "column 2 of the header has no name")
        #expect(error("")?.line == 1)
    }

    /// SQLite matches column names ignoring the case of ASCII letters only.
    @Test("A header names a column twice only as SQLite would read it")
    func headerNames() throws {
        #expect(error("Title,title\n1,2\n")?.message.contains("twice") == true)
        #expect(try records("Ä,ä\n1,2\n").first?.columns == ["Ä", "ä"])
        #expect(try records("\u{E9},e\u{301}\n1,2\n").first?.columns.count == 2)
    }
}

@Suite("CSV reader, in chunks", .onProcessThreads)
struct CSVChunkTests {
    /// Every record of `bytes`, read from a file a chunk at a time.
    private func records(fromFile bytes: [UInt8]) throws -> [ImportRecord] {
        let directory = try TemporaryDirectory()
        let file = directory.file("f.csv")
        try Data(bytes).write(to: file)
        let descriptor = open(file.path, O_RDONLY)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var reader = try CSVReader(descriptor: descriptor, file: "f.csv")
        var records: [ImportRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    private func records(inMemory bytes: [UInt8]) throws -> [ImportRecord] {
        var reader = try CSVReader(bytes: bytes, file: "f.csv")
        var records: [ImportRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    @Test("Records that cross chunks, a field longer than a chunk, and a character cut by a chunk's end")
    func crossing() throws {
        var bytes = Array("a,b,c\r\n".utf8)
        // A two-byte character across the end of the first chunk (1 MiB).
        bytes += Array("1,".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) - 1 - bytes.count - 2)
        bytes += Array("é,z\r\n".utf8)
        for index in 0..<30_000 {
            bytes += Array("\(index),\"é \"\"q\"\"\r\n ✓ \(index)\",\r\n\n".utf8)
        }
        bytes += Array("big,\"".utf8) + Array(String(repeating: "ab\"\"c\n👩‍👩‍👧", count: 200_000).utf8)
        bytes += Array("\",end".utf8)
        let chunked = try records(fromFile: bytes)
        let whole = try records(inMemory: bytes)
        #expect(chunked.count == 30_002)
        #expect(chunked.map(\.line) == whole.map(\.line))
        #expect(chunked.map(\.values) == whole.map(\.values))
        #expect(chunked[0].values[1] == .text(String(repeating: "x", count: (1 << 20) - 10) + "é"))
        #expect(chunked[1].values == [.text("0"), .text("é \"q\"\r\n ✓ 0"), .null])
        #expect(chunked.last?.values[1] == .text(String(repeating: "ab\"c\n👩‍👩‍👧", count: 200_000)))
    }

    @Test("A byte that is not UTF-8 far into a file names its line and offset")
    func invalidLate() throws {
        var bytes = Array("a,b\n".utf8)
        for index in 0..<100_000 { bytes += Array("\(index),\"two\nlines\"\n".utf8) }
        let offset = bytes.count + 3
        bytes += Array("x,y".utf8) + [0xE9] + Array("\n".utf8)
        let lines = 1 + bytes[..<offset].count { $0 == UInt8(ascii: "\n") }
        #expect(throws: ImportError.self) { try records(fromFile: bytes) }
        do {
            _ = try records(fromFile: bytes)
        } catch let error as ImportError {
            #expect(error.line == lines)
            #expect(error.message.hasPrefix("not UTF-8 (byte \(offset + 1) of the file, 0xE9)"))
        }
    }
}

@Suite("JSON record reader", .onProcessThreads)
struct JSONRecordReaderTests {
    private func records(_ text: String, _ layout: JSONRecordReader.Layout) throws -> [ImportRecord] {
        var reader = JSONRecordReader(bytes: Array(text.utf8), file: "f.json", layout: layout)
        var records: [ImportRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    private func error(_ text: String, _ layout: JSONRecordReader.Layout) -> ImportError? {
        do {
            _ = try records(text, layout)
            return nil
        } catch {
            return error as? ImportError
        }
    }

    @Test("An array of objects: typed values, nested values as JSON text, escapes")
    func array() throws {
        let records = try records(
            """
            [
              {"a": 1, "b": -2.5e1, "c": "x\\"y\\u00e9\\ud83d\\ude00", "d": true, "e": null},
              {"b": false, "f": [1, {"g": "h"}], "g": {}}
            ]
            """, .array)
        #expect(records.map(\.line) == [2, 3])
        #expect(records[0].columns == ["a", "b", "c", "d", "e"])
        #expect(records[0].values == [.integer(1), .real(-25), .text("x\"yé😀"), .integer(1), .null])
        #expect(records[1].columns == ["b", "f", "g"])
        #expect(records[1].values == [.integer(0), .text(#"[1, {"g": "h"}]"#), .text("{}")])
        #expect(try self.records(" [ ] ", .array).isEmpty)
    }

    @Test("NDJSON: one object per line, blank lines skipped")
    func lines() throws {
        let records = try records("{\"a\": 1}\n\n{\"a\": \"two\"}\r\n", .lines)
        #expect(records.map(\.line) == [1, 3])
        #expect(records.map(\.values) == [[.integer(1)], [.text("two")]])
    }

    @Test("Bad rows name their line")
    func errors() {
        #expect(error("[\n{\"a\": 1},\n{\"a\": tru}\n]", .array)?.line == 3)
        #expect(error("[\n{\"a\": 1}\n{\"a\": 2}\n]", .array)?.message == "expected \",\" or \"]\" after an object")
        #expect(error("[{\"a\": 1, \"a\": 2}]", .array)?.message == "the key \"a\" appears twice in one object")
        #expect(error("[{\"a\": 1}] x", .array)?.message == "more after the end of the array")
        #expect(error("{\"a\": 1}", .array)?.message == "expected \"[\", the start of an array of objects")
        #expect(error("[1]", .array)?.message == "expected an object, \"{\"; each row is a JSON object")
        #expect(error("{\"a\": 1}\n{\"a\": \"open}\n", .lines)?.line == 2)
        #expect(
            error("{\"a\": 1} {\"a\": 2}\n", .lines)?.message
                == "more after the object; NDJSON holds one object per line")
        #expect(error("[{\"a\": \"line\nbreak\"}]", .array)?.line == 1)
    }
}
