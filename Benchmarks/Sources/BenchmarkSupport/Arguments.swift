import Foundation

/// A benchmark's command line, read option by option: `--name value`.
package struct Arguments {
    private var rest: ArraySlice<String>

    package init(_ arguments: [String]) { rest = arguments[...] }

    /// The next option, or nil after the last.
    package mutating func next() -> String? { rest.popFirst() }

    /// The value that follows `option`.
    package mutating func value(_ option: String) throws -> String {
        guard let value = rest.popFirst() else { throw BenchmarkError("\(option) takes a value") }
        return value
    }

    /// The positive number that follows `option`.
    package mutating func number(_ option: String) throws -> Int {
        guard let number = Int(try value(option)), number > 0 else {
            throw BenchmarkError("\(option) takes a positive number")
        }
        return number
    }

    /// The path of the program `name` in `PATH`, if it is there.
    package static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
