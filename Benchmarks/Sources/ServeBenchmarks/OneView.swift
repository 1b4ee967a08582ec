import BenchmarkSupport
import Foundation

/// Clients that all follow the same view, and single-row commits that change it: the time from a
/// commit's return to every client having the event, the refetches per commit, and the memory
/// an idle client costs the server.
enum OneView {
    static func run(_ options: Options, database: String) throws {
        print(
            "One view, one client then \(options.clients): \(options.commits) single-row commits from another "
                + "connection, each waited for by every client; view A is /items.sse?"
                + queryString(viewParameters)
                + " (its count reads 166,667 rows), with count=false too (no count), view B /items.sse?"
                + queryString(indexCountParameters) + " (the same rows, counted from the index)")
        print("")
        print(
            "| view | clients | commit → first client p50 ms | commit → all clients p50 ms | p99 ms "
                + "| refetches per commit | readers | server RSS before → after MB | KB per idle client |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        let writer = try RawConnection(path: database)
        for (view, parameters) in [
            ("A", viewParameters), ("A, count=false", viewParameters + [("count", "false")]),
            ("B", indexCountParameters),
        ] {
            for clients in Set([1, options.clients]).sorted() {
                try measure(
                    options, database: database, writer: writer, view: view, parameters: parameters, clients: clients)
            }
        }
        print("")
    }

    private static func measure(
        _ options: Options, database: String, writer: RawConnection, view: String, parameters: [(String, String)],
        clients: Int
    ) throws {
        let path = "/items.sse?" + queryString(parameters)
        let server = try startServer(options, database: database, maximumClients: clients + 10)
        defer { server.stop() }
        let page = try HTTP.json(port: server.port, "/items.json?" + queryString(parameters)) as? [String: Any]
        guard let id = ((page?["rows"] as? [[String: Any]])?.first?["id"] as? Int) else {
            throw BenchmarkError("the view has no rows")
        }
        // The first client opens the view's reader; the others are the idle clients measured.
        var all = [try EventClients(port: server.port, paths: [path])]
        defer { for fleet in all { fleet.close() } }
        try all[0].wait(limit: 60, "the first client's first event") { $0[0] >= 1 }
        let memoryBefore = try server.residentMemory()
        if clients > 1 {
            all.append(try EventClients(port: server.port, paths: Array(repeating: path, count: clients - 1)))
            try all[1].wait(limit: 120, "every client's first event") { $0.allSatisfy { $0 >= 1 } }
        }
        let memoryAfter = try server.residentMemory()
        let (readers, fetchesBefore) = try readerFetches(server)

        var toAll: [Double] = []
        var toFirst: [Double] = []
        let run = "\(getpid())-\(Clock.now)"
        for commit in 1...options.commits {
            let before = all.map(\.snapshot.counts)
            try writer.execute("UPDATE items SET title = 'serve benchmark \(run) \(commit)' WHERE id = \(id)")
            let committed = Clock.now
            for (fleet, counts) in zip(all, before) {
                try fleet.wait(limit: 60, "commit \(commit)'s event") { now in
                    zip(now, counts).allSatisfy { $0 > $1 }
                }
            }
            let times = all.flatMap(\.snapshot.times)
            let milliseconds = { (time: UInt64) in Double(Int64(time) - Int64(committed)) / 1e6 }
            toAll.append(milliseconds(times.max()!))
            toFirst.append(milliseconds(times.min()!))
        }
        let fetches = try readerFetches(server).fetches - fetchesBefore
        let perClient = clients > 1 ? format(Double(memoryAfter - memoryBefore) / Double(clients - 1) / 1024) : "–"
        print(
            "| \(view) | \(clients) | \(format(median(toFirst))) | \(format(median(toAll))) "
                + "| \(format(percentile(toAll, 0.99))) | \(format(Double(fetches) / Double(options.commits), digits: 2)) "
                + "| \(readers) | \(format(Double(memoryBefore) / 1e6)) → \(format(Double(memoryAfter) / 1e6)) "
                + "| \(perClient) |")
    }
}
