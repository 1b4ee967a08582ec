import BenchmarkSupport
import Foundation

/// The time to the first byte of a table page with a filter and two facets, one request at a
/// time on a new connection each.
enum FirstByte {
    static func run(_ options: Options, database: String) throws {
        let server = try startServer(options, database: database, maximumClients: 100)
        defer { server.stop() }
        let path = "/items?" + queryString([("where", "priority = 4"), ("facet", "list_id"), ("facet", "done")])
        var firstBytes: [Double] = []
        var totals: [Double] = []
        var bytes = 0
        for _ in 1...options.pageRequests {
            let answer = try HTTP.get(port: server.port, path)
            guard answer.status == 200 else { throw BenchmarkError("\(path) answered \(answer.status)") }
            firstBytes.append(answer.firstByte)
            totals.append(answer.total)
            bytes = answer.body.count
        }
        print("Table page \(path) (\(bytes) bytes of HTML), \(options.pageRequests) requests one after the other")
        print("")
        print("| first byte p50 ms | first byte min ms | first byte max ms | whole page p50 ms |")
        print("|---:|---:|---:|---:|")
        print(
            "| \(format(median(firstBytes))) | \(format(firstBytes.min()!)) | \(format(firstBytes.max()!)) "
                + "| \(format(median(totals))) |")
        print("")
    }
}
