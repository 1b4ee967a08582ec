import Foundation
import Testing

/// SQLCore is the core every source shares: a product that uses it without SQLite must not link
/// libsqlite3, so the module imports no SQLite and its target depends on none.
@Suite("SQLCore's dependencies")
struct SQLCoreDependencyTests {
    /// The package's root folder, found from this file's path.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    @Test("no source file of SQLCore imports CSQLite or SQLite")
    func importsNoSQLite() throws {
        let folder = Self.root.appendingPathComponent("Sources/SQLCore")
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { line in
                let words = line.split(separator: " ")
                return words.contains("import") && (words.last == "CSQLite" || words.last == "SQLite")
            }
            #expect(imports.isEmpty, "Sources/SQLCore/\(file) imports \(imports)")
        }
    }

    @Test("the SQLCore target in Package.swift depends on no SQLite module")
    func targetDependsOnNoSQLite() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try #require(
            manifest.split(separator: "\n").first { $0.contains(#".target(name: "SQLCore""#) },
            "Package.swift declares no SQLCore target")
        #expect(!target.contains("SQLite"), "SQLCore's target reads: \(target)")
    }
}
