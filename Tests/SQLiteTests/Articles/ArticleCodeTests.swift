import Foundation
import Testing

/// Keeps the documentation's code compiled: every ```swift block of an article in a DocC catalog
/// (`Sources/<Module>/<Module>.docc/<Article>.md`) must appear, line for line, in that article's
/// test file (`Tests/<Module>Tests/Articles/<Article>Tests.swift`), which the test suite compiles
/// and runs, or in the program it runs (`Tests/Examples/<Article>/`). Indentation and blank lines are
/// ignored, so a sample can sit inside a test function.
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
        /// Where an article whose code is one whole program keeps it: an executable target that
        /// the article's test runs.
        var programFolder: URL {
            ArticleCodeTests.root.appendingPathComponent("Tests/Examples/\(name)")
        }

        /// The test file, then the program's files when there is a program.
        func testSources() throws -> String {
            let program = (try? FileManager.default.contentsOfDirectory(atPath: programFolder.path)) ?? []
            let files =
                [testFile]
                + program.filter { $0.hasSuffix(".swift") }.sorted().map {
                    programFolder.appendingPathComponent($0)
                }
            return try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
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
            modules == [
                "LiveHTTP", "LiveQuery", "PostgreSQL", "QueryBuilder", "QueryCache", "QueryEviction", "Queryable",
                "SQLCore",
                "SQLRecords",
                "SQLite",
                "SharingSQLite",
            ])
    }

    @Test(arguments: articles)
    func articleCodeIsTested(_ article: Article) throws {
        let markdown = try String(contentsOf: article.file, encoding: .utf8)
        let blocks = Self.swiftBlocks(in: markdown)
        guard !blocks.isEmpty else { return }
        let testSource = try article.testSources()
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

    /// Every ```swift block of the article, joined into one text.
    static func code(of article: Article) throws -> String {
        let markdown = try String(contentsOf: article.file, encoding: .utf8)
        return swiftBlocks(in: markdown).map { $0.joined(separator: "\n") }.joined(separator: "\n")
    }

    /// Whether `word` occurs in `text` as a whole identifier.
    static func mentions(_ text: String, _ word: String) -> Bool {
        text.range(of: "(?<![A-Za-z0-9_])\(word)(?![A-Za-z0-9_])", options: .regularExpression) != nil
    }

    /// The names of the types that `source` declares.
    static func declaredTypes(in source: String) -> Set<String> {
        let pattern = #/(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)/#
        return Set(source.matches(of: pattern).map { String($0.output.1) })
    }

    /// A reader copies an article's code into a program: the testing library's macros do not
    /// exist there, unless the article's code is a test and says so with `import Testing`.
    @Test(arguments: articles)
    func articleCodeUsesNoTestingMacros(_ article: Article) throws {
        let code = try Self.code(of: article)
        guard !code.contains("import Testing") else { return }  // an article about testing
        for macro in ["#require", "#expect", "Issue.record"] {
            #expect(!code.contains(macro), "\(article.file.lastPathComponent) uses \(macro), which only tests have")
        }
    }

    /// A module outside the package that the article's code needs is imported in the article,
    /// as its test file does.
    @Test(arguments: articles)
    func articleCodeShowsItsImports(_ article: Article) throws {
        let code = try Self.code(of: article)
        let telltales = ["Synchronization": ["Mutex", "Atomic"], "Observation": ["withObservationTracking"]]
        for (module, words) in telltales where words.contains(where: { Self.mentions(code, $0) }) {
            #expect(
                code.contains("import \(module)"),
                "\(article.file.lastPathComponent) uses \(module) (\(words.joined(separator: ", "))) without importing it"
            )
        }
    }

    /// A type the article's code uses is declared in the article, or in another article of the
    /// same catalog (which the article names), never only in the test file.
    @Test(arguments: articles)
    func articleCodeDeclaresItsTypes(_ article: Article) throws {
        let code = try Self.code(of: article)
        guard !code.isEmpty else { return }
        let catalog = Self.articles.filter { $0.module == article.module }
        let declaredInCatalog = try catalog.reduce(into: Set<String>()) {
            $0.formUnion(Self.declaredTypes(in: try Self.code(of: $1)))
        }
        let testSource = try article.testSources()
        let testOnly = Self.declaredTypes(in: testSource)
            .subtracting(declaredInCatalog)
            .subtracting(["\(article.name)Article", "\(article.name)Tests"])
        for name in testOnly.sorted() where Self.mentions(code, name) {
            Issue.record("\(article.file.lastPathComponent) uses \(name), which only its test file declares")
        }
    }

    /// The README's ```swift blocks that are code of a module: a block that starts with
    /// `import <Module>`, and the blocks after it in the same section. Each must appear in
    /// `Tests/<Module>Tests/Articles/READMETests.swift`, its imports among that file's.
    static func readmeBlocks() throws -> [(module: String, lines: [String])] {
        let markdown = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [(module: String, lines: [String])] = []
        var module: String?
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, line.hasPrefix("#") {
                module = nil
            } else if current == nil, trimmed == "```swift" {
                current = []
            } else if let lines = current, trimmed == "```" {
                if let first = normalized(lines).first, first.hasPrefix("import ") {
                    module = String(first.dropFirst("import ".count))
                }
                if let module { blocks.append((module, lines)) }
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test func readmeCodeIsTested() throws {
        let blocks = try Self.readmeBlocks()
        #expect(
            Set(blocks.map(\.module)) == [
                "SQLite", "SharingSQLite", "QueryCache", "Queryable", "PostgreSQL", "LiveHTTP",
            ])
        for block in blocks {
            let file = Self.root.appendingPathComponent("Tests/\(block.module)Tests/Articles/READMETests.swift")
            let source = try String(contentsOf: file, encoding: .utf8)
            let testLines = Self.normalized(source.components(separatedBy: "\n"))
            let lines = Self.normalized(block.lines)
            let imports = lines.prefix { $0.hasPrefix("import ") }
            let code = Array(lines.dropFirst(imports.count))
            #expect(
                imports.allSatisfy(testLines.contains) && Self.contains(testLines, code),
                """
                this block of README.md is not in \(file.lastPathComponent) of \(block.module)Tests \
                (indentation and blank lines aside):
                \(block.lines.joined(separator: "\n"))
                """)
        }
    }

    /// The README is the newcomer's page: what the package is, the two commands, one example per
    /// module and links; the details live in the catalogs and the sqlq reference.
    @Test func readmeIsTheNewcomersPage() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        #expect(lines.count <= 400, "README.md has \(lines.count) lines")
        #expect(lines.contains("## Two commands"))
        #expect(lines.contains { $0.hasPrefix("swift run sqlq query items ") })
        #expect(lines.contains { $0.hasPrefix("swift test ") })
        #expect(!readme.contains("not built yet"))
    }

    @Test func findsBlocksAndLines() {
        let markdown = "text\n```swift\nlet a = 1\n\n    let b = 2\n```\n```sh\nls\n```\n"
        #expect(Self.swiftBlocks(in: markdown) == [["let a = 1", "", "    let b = 2"]])
        #expect(Self.contains(["x", "let a = 1", "let b = 2"], Self.normalized(["let a = 1", "  let b = 2"])))
        #expect(!Self.contains(["let a = 1", "x", "let b = 2"], ["let a = 1", "let b = 2"]))
    }
}
