import Foundation
import SharingSQLite
import Synchronization

// The query cache behind SharedReader (`--observation`, or `--cache` alone):
// - switching a reader back to a query it loaded before: the time of `load(_:)`, key built
//   inline as user code does, until the reader holds the cached value (checked);
// - 100,000 distinct queries loaded in turn by one reader: the stores held stay within the
//   count limit, and an idle timeout empties the cache.

struct CachedItem: FetchableRow, Equatable, Sendable {
    var id: Int64
    var title: String
    init(row: BorrowedRow) throws {
        id = try row[0]
        title = try row[1]
    }
}

/// A dynamic query, as in the SharingGRDB documentation: items from an id on.
struct ItemsFrom: FetchKeyRequest {
    var minimumID: Int64
    func fetch(_ db: Database) throws -> [CachedItem] {
        try Table("items").filter(Column("id") >= minimumID).sort(Column("id")).limit(20).asRequest(of: CachedItem.self)
            .fetchAll(db)
    }
}

func runCacheBenchmarks() throws {
    try blockingAsync {
        try await switchingBack()
        print("")
        try await manyStores()
    }
}

private func makeItemsQueue(rows: Int) throws -> DatabaseQueue {
    let db = try DatabaseQueue()
    try db.write { db in
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        for index in 1...rows { try db.execute("INSERT INTO items(title) VALUES (?)", [.text("item \(index)")]) }
    }
    return db
}

private func switchingBack() async throws {
    let db = try makeItemsQueue(rows: 1_000)
    let reader = SharedReader<[CachedItem]>(value: [])
    let switches = 20_000
    var cached: [Double] = []
    var uncached: [Double] = []
    cached.reserveCapacity(switches)
    for index in 0..<switches {
        // Each new query is loaded (a fetch), then the reader goes back to the first one (cached).
        let fresh = Int64(2 + index % 900)
        for (minimum, isCached) in [(fresh, false), (1, true)] {
            let start = monotonicNanoseconds()
            try await reader.load(.fetch(ItemsFrom(minimumID: minimum), database: db))
            let elapsed = Double(monotonicNanoseconds() - start) / 1e3
            guard reader.wrappedValue.first?.id == minimum, reader.wrappedValue.count == 20 else {
                throw BenchmarkError("the reader does not hold the rows of the query it loaded")
            }
            if isCached { cached.append(elapsed) } else if index < 900 { uncached.append(elapsed) }
        }
    }
    print("| query cache: switching a reader (\(switches) switches) | p50 µs | p99 µs |")
    print("|---|---:|---:|")
    print(
        "| back to a cached query | \(String(format: "%.2f", percentile(cached, 0.5))) | \(String(format: "%.2f", percentile(cached, 0.99))) |"
    )
    print(
        "| to a query never loaded (one fetch) | \(String(format: "%.2f", percentile(uncached, 0.5))) | \(String(format: "%.2f", percentile(uncached, 0.99))) |"
    )
}

private func manyStores() async throws {
    let db = try makeItemsQueue(rows: 100)
    let reader = SharedReader<Int?>(value: nil)
    let loads = 100_000
    let limit = SharedReaderCache.maxStoreCount ?? 0
    var peak = 0
    var residentAt10k = 0.0
    let start = monotonicNanoseconds()
    for index in 0..<loads {
        try await reader.load(
            .fetchOne("SELECT count(*) FROM items WHERE id >= ?", arguments: [.integer(Int64(index))], database: db))
        peak = max(peak, SharedReaderCache.storeCount(for: db))
        if index + 1 == 10_000 { residentAt10k = residentMegabytes() }
    }
    let perLoad = Double(monotonicNanoseconds() - start) / 1e3 / Double(loads)
    let held = SharedReaderCache.storeCount(for: db)
    let residentAtEnd = residentMegabytes()

    // The idle timeout: no count limit, a short timeout, then a pause longer than it.
    let defaults = (SharedReaderCache.idleTimeout, SharedReaderCache.maxStoreCount)
    defer { (SharedReaderCache.idleTimeout, SharedReaderCache.maxStoreCount) = defaults }
    SharedReaderCache.maxStoreCount = nil
    SharedReaderCache.idleTimeout = 1
    for index in 0..<5_000 {
        try await reader.load(
            .fetchOne("SELECT count(*) FROM items WHERE id >= ?", arguments: [.integer(Int64(-index))], database: db))
    }
    let beforePause = SharedReaderCache.storeCount(for: db)
    try await Task.sleep(for: .milliseconds(1_200))
    try await reader.load(.fetchOne("SELECT count(*) FROM items WHERE id >= ?", arguments: [1], database: db))
    let afterPause = SharedReaderCache.storeCount(for: db)

    print("| query cache: \(loads) distinct queries loaded by one reader | value |")
    print("|---|---:|")
    print("| limit (SharedReaderCache.maxStoreCount) | \(limit) |")
    print("| most stores held at once | \(peak) |")
    print("| stores held at the end | \(held) |")
    print("| µs per load (a fetch and a store each) | \(String(format: "%.1f", perLoad)) |")
    print(
        "| resident memory after 10,000 / \(loads) loads, MB | \(String(format: "%.1f", residentAt10k)) / \(String(format: "%.1f", residentAtEnd)) |"
    )
    print("| no count limit, 1 s idle timeout: stores after 5,000 more loads (the 1,000 above stay) | \(beforePause) |")
    print("| … and after a 1.2 s pause and one more load | \(afterPause) |")
}

private func residentMegabytes() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// Runs async benchmark code from the synchronous main program.
func blockingAsync(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<(any Error)?>(nil)
    Task {
        do { try await body() } catch { failure.withLock { $0 = error } }
        done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}
