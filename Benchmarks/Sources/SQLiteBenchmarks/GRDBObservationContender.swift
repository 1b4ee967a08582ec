import Dispatch
import Foundation
import GRDB
import Synchronization

/// GRDB 7's ValueObservation on an in-memory DatabaseQueue, with `removeDuplicates()` so that it
/// notifies as rarely as a SharedReader does, delivering on a serial queue (no main thread here).
struct GRDBObservationContender: ObservationContender {
    let name = "GRDB ValueObservation"

    func writes(_ writes: Int, readers: Int, sharedKey: Bool, table: String) throws -> (
        perWrite: Double, settled: Double
    ) {
        let db = try DatabaseQueue()
        try db.write { try $0.execute(sql: observationSchema) }
        let expected = table == "items" ? writes : 1
        let values = Mutex([Int](repeating: -1, count: readers))
        let queue = DispatchQueue(label: "grdb-observation")
        let cancellables = (0..<readers).map { index in
            ValueObservation
                .tracking { db in try Int.fetchOne(db, sql: countQuery(table), arguments: [index]) ?? 0 }
                .removeDuplicates()
                .start(in: db, scheduling: .async(onQueue: queue), onError: { error in fatalError("\(error)") }) {
                    value in
                    values.withLock { $0[index] = value }
                }
        }
        defer { for cancellable in cancellables { cancellable.cancel() } }
        try waitUntil("the first values") { values.withLock { $0.allSatisfy { $0 == (table == "items" ? 0 : 1) } } }
        settle()
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<writes {
            try db.write { try $0.execute(sql: "INSERT INTO items(title) VALUES (?)", arguments: ["item \(index)"]) }
        }
        let written = DispatchTime.now().uptimeNanoseconds
        try waitUntil("the final values") { values.withLock { $0.allSatisfy { $0 == expected } } }
        let settled = DispatchTime.now().uptimeNanoseconds
        return (Double(written - start) / 1e3 / Double(writes), Double(settled - start) / 1e6)
    }

    func latencies(_ samples: Int) throws -> [Double] {
        let db = try DatabaseQueue()
        try db.write { try $0.execute(sql: observationSchema) }
        let expected = Atomic<Int>(0)
        let notifiedAt = Atomic<UInt64>(0)
        let notified = DispatchSemaphore(value: 0)
        let cancellable =
            ValueObservation
            .tracking { db in try Int.fetchOne(db, sql: countQuery("items"), arguments: [0]) ?? 0 }
            .removeDuplicates()
            .start(
                in: db, scheduling: .async(onQueue: DispatchQueue(label: "grdb-latency")),
                onError: { fatalError("\($0)") },
                onChange: { value in
                    let now = monotonicNanoseconds()
                    if value == expected.load(ordering: .acquiring) {
                        notifiedAt.store(now, ordering: .releasing)
                        notified.signal()
                    }
                })
        defer { cancellable.cancel() }
        notified.wait()
        var latencies: [Double] = []
        for index in 1...samples {
            expected.store(index, ordering: .releasing)
            let start = monotonicNanoseconds()
            try db.write { try $0.execute(sql: "INSERT INTO items(title) VALUES ('x')") }
            notified.wait()
            latencies.append(Double(notifiedAt.load(ordering: .acquiring) - start) / 1e3)
        }
        return latencies
    }
}
