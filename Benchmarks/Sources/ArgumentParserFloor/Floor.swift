import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

// The start-up floor of an argument-parser program: sqlq's `query` options, declared the same
// way, parsed the same way (parseAsRoot), and no database work at all. CLIBenchmarks times it
// beside sqlq and the sqlite3 shell, which tells how much of sqlq's start is parsing.

enum Format: String, CaseIterable, ExpressibleByArgument {
    case table, json, ndjson, csv, tsv, markdown
    var defaultValueDescription: String { rawValue }
    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

struct DatabaseOptions: ParsableArguments {
    @Option(help: "The database.") var db: String?
}

struct QueryOptions: ParsableArguments {
    @Argument(help: "The table.") var table: String
    @Option(name: .customLong("where"), parsing: .unconditionalSingleValue, help: "A filter.") var filters: [String] =
        []
    @Option(parsing: .unconditionalSingleValue, help: "A sort.") var sort: [String] = []
    @Option(help: "A limit.") var limit: Int?
    @Option(help: "An offset.") var offset: Int?
    @Option(help: "Columns.") var columns: [String] = []
    @Flag(help: "Count.") var count = false
    @Option(help: "A format.") var format: Format = .table
    @Flag(help: "Explain.") var explain = false
}

struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "query")
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var query: QueryOptions
    func run() {}
}

@main
struct Floor: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sqlq", subcommands: [Query.self])

    static func main() {
        do {
            var command = try parseAsRoot(nil)
            try command.run()
            Glibc.exit(0)
        } catch {
            Glibc.exit(2)
        }
    }
}
