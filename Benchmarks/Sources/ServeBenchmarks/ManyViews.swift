import BenchmarkSupport
import Foundation

/// Clients that each follow their own one-row view (`where=id = k`), and single-row writes to one
/// of those rows: which clients get an event, and the server's CPU time per write, against the
/// same writes with one client.
enum ManyViews {
    static func run(_ options: Options, database: String) throws {
        print(
            "Distinct views (/items.sse?where=id = k, k = 1…clients): \(options.writes) single-row writes from another "
                + "connection, each to one client's row; server CPU is utime + stime from /proc/PID/stat")
        print("")
        print(
            "| clients | readers | events per write | writes seen by exactly their one client | refetches per write "
                + "| server CPU ms per write |")
        print("|---:|---:|---:|---:|---:|---:|")
        let writer = try RawConnection(path: database)
        var cpu: [Int: Double] = [:]
        for clients in Set([1, options.clients]).sorted() {
            let server = try startServer(options, database: database, maximumClients: clients + 10)
            defer { server.stop() }
            let paths = (1...clients).map { "/items.sse?" + queryString([("where", "id = \($0)")]) }
            let fleet = try EventClients(port: server.port, paths: paths)
            defer { fleet.close() }
            try fleet.wait(limit: 120, "every client's first event") { $0.allSatisfy { $0 >= 1 } }
            let (readers, fetchesBefore) = try readerFetches(server)
            let start = fleet.snapshot.counts
            let cpuBefore = try server.cpuMilliseconds()
            var exact = 0
            let run = "\(getpid())-\(Clock.now)"
            for write in 0..<options.writes {
                let client = write % clients
                let before = fleet.snapshot.counts
                try writer.execute(
                    "UPDATE items SET title = 'serve benchmark \(run) \(write)' WHERE id = \(client + 1)")
                try fleet.wait(limit: 60, "write \(write)'s event") { $0[client] > before[client] }
                let after = fleet.snapshot.counts
                let changed = zip(after, before).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
                if changed == [client], after[client] == before[client] + 1 { exact += 1 }
            }
            let cpuUsed = try server.cpuMilliseconds() - cpuBefore
            let fetches = try readerFetches(server).fetches - fetchesBefore
            // Any late event to another client would show here.
            let events = zip(fleet.snapshot.counts, start).reduce(0) { $0 + $1.0 - $1.1 }
            cpu[clients] = cpuUsed / Double(options.writes)
            print(
                "| \(clients) | \(readers) | \(format(Double(events) / Double(options.writes), digits: 2)) "
                    + "| \(exact) of \(options.writes) | \(format(Double(fetches) / Double(options.writes), digits: 1)) "
                    + "| \(format(cpuUsed / Double(options.writes), digits: 2)) |")
        }
        if let one = cpu[1], let many = cpu[options.clients], options.clients > 1 {
            print("")
            print("CPU per write, \(options.clients) clients ÷ 1 client: \(format(many / one, digits: 1))×")
        }
        print("")
    }
}
