import Foundation
import Testing

/// Keeps the documentation's code compiled: every ```swift block of an article in a DocC catalog
/// (`Sources/<Module>/<Module>.docc/<Article>.md`) must appear, line for line, in that article's
/// test file (`Tests/<Module>Tests/Articles/<Article>Tests.swift`), which the test suite compiles
/// and runs. Indentation and blank lines are ignored, so a sample can sit inside a test function.
@Suite struct ArticleCodeTests {
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

    struct Article: CustomTestStringConvertible, Sendable {
        var module: String
        var name: String
        var file: URL
        var testDescription: String { "\(module)/\(name)" }
        var testFile: URL {
            ArticleCodeTests.root.appendingPathComponent("Tests/\(module)Tests/Articles/\(name)Tests.swift")
        }
    }

    /// Every Markdown file of every catalog.
    static let articles: [Article] = {
        let sources = root.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return modules.sorted().flatMap { module -> [Article] in
            let catalog = sources.appendingPathComponent("\(module)/\(module).docc")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
            return files.filter { $0.hasSuffix(".md") }.sorted().map { file in
                Article(
                    module: module, name: String(file.dropLast(3)), file: catalog.appendingPathComponent(file))
            }
        }
    }()

    /// The ```swift blocks of a Markdown text, each as its lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// Lines without their indentation, blank lines dropped.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    @Test func everyCatalogHasArticles() {
        let modules = Set(Self.articles.map(\.module))
        #expect(
            modules == ["PostgreSQL", "QueryBuilder", "QueryCache", "Queryable", "SQLCore", "SQLite", "SharingSQLite"])
    }

    @Test(arguments: articles)
    func articleCodeIsTested(_ article: Article) throws {
        let markdown = try String(contentsOf: article.file, encoding: .utf8)
        let blocks = Self.swiftBlocks(in: markdown)
        guard !blocks.isEmpty else { return }
        let testSource = try String(contentsOf: article.testFile, encoding: .utf8)
        let testLines = Self.normalized(testSource.components(separatedBy: "\n"))
        for block in blocks {
            // A Bool, so that a failure shows the block rather than the whole test file.
            let isTested = Self.contains(testLines, Self.normalized(block))
            #expect(
                isTested,
                """
                this block of \(article.file.lastPathComponent) is not in \(article.testFile.lastPathComponent) \
                (indentation and blank lines aside):
                \(block.joined(separator: "\n"))
                """
            )
        }
    }

    @Test func findsBlocksAndLines() {
        let markdown = "text\n```swift\nlet a = 1\n\n    let b = 2\n```\n```sh\nls\n```\n"
        #expect(Self.swiftBlocks(in: markdown) == [["let a = 1", "", "    let b = 2"]])
        #expect(Self.contains(["x", "let a = 1", "let b = 2"], Self.normalized(["let a = 1", "  let b = 2"])))
        #expect(!Self.contains(["let a = 1", "x", "let b = 2"], ["let a = 1", "let b = 2"]))
    }
}
