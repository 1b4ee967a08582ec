import Locking
import QueryBuilder
import SQLCore
import SQLRecords

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The connection a portable `FetchKeyRequest` runs on when it reads PostgreSQL: query-builder
/// requests rendered in PostgreSQL's dialect, sent on one session and awaited on the calling
/// thread (a refetch round's queue, or a thread of ``PostgreSQLDatabase/fetch(_:)``'s own).
///
/// It records the tables its requests read, which is what a live value on PostgreSQL observes.
final class PostgreSQLReadConnection: SQLConnection {
    let session: Session
    /// Where the tables of SQL texts are kept once learned: the live source's, for the fetches of
    /// its rounds; nil for a fetch whose region nobody reads.
    private let planTables: PlanTables?
    /// The tables of the requests run since the last ``recordingTables(_:)`` began.
    private var tables: Set<String> = []

    init(session: Session, planTables: PlanTables? = nil) {
        self.session = session
        self.planTables = planTables
    }

    func _fetch<RowValue, T>(
        _ request: QueryInterfaceRequest<RowValue>, _ shape: SQLFetchShape, _ decode: (BorrowedRow) throws -> T
    ) throws -> [T] {
        let rendered = try request.rendered(.postgreSQL, one: shape == .one, count: shape == .count)
        if let unsupported = rendered.unsupported {
            throw PostgreSQLError(
                kind: .other, message: "PostgreSQL has no \(unsupported); this request runs on SQLite only",
                sql: rendered.sql)
        }
        tables.insert(request.tableName.lowercased())
        let cursor = OwnedRowCursor()
        return try session.runBlocking(rendered.sql, rendered.arguments).map { try decode(cursor.borrow($0)) }
    }

    /// Runs `body`, and returns what it produced with the tables its requests read.
    func recordingTables<T>(_ body: () throws -> T) rethrows -> (T, Set<String>) {
        tables = []
        let value = try body()
        return (value, tables)
    }

    /// What `sql` reads: the tables of the plan PostgreSQL makes for it, asked once per SQL text;
    /// everything when the plan scans something other than tables (a function may read any
    /// table), or when nobody keeps the answer.
    func region(of sql: String, _ arguments: [DatabaseValue]) throws -> DatabaseRegion {
        guard let planTables else { return .everything }
        let tables: Set<String>?
        if let known = planTables.known.withLock({ $0[ExactString(sql)] }) {
            tables = known
        } else {
            tables = try tablesRead(by: sql, arguments)
            planTables.known.withLock { $0[ExactString(sql)] = tables }
        }
        return tables.map { DatabaseRegion(tables: $0) } ?? .everything
    }

    /// The tables `sql` reads, from the plan PostgreSQL makes for it; nil when the plan scans
    /// something other than tables.
    private func tablesRead(by sql: String, _ arguments: [DatabaseValue]) throws -> Set<String>? {
        guard let row = try session.runBlocking("EXPLAIN (FORMAT JSON) " + sql, arguments).first,
            case .text(let json) = row.value(at: 0),
            let plans = try? JSONDecoder().decode([ExplainedStatement].self, from: Data(json.utf8))
        else { return nil }
        var tables: Set<String> = []
        // Bounded, since the SQL is the user's: a plan deeper than this is read as unknown.
        func visit(_ node: PlanNode, depth: Int) -> Bool {
            guard depth < 200, node.nodeType != "Function Scan", node.nodeType != "Foreign Scan" else { return false }
            if let name = node.relationName { tables.insert(name.lowercased()) }
            return (node.plans ?? []).allSatisfy { visit($0, depth: depth + 1) }
        }
        return plans.allSatisfy { visit($0.plan, depth: 0) } ? tables : nil
    }
}

/// SQL text → the tables its plan reads (nil: something other than tables), kept by a live
/// source across its rounds and connections. Keyed by the SQL's bytes: texts that differ only in
/// Unicode normalization name other tables.
final class PlanTables: Sendable {
    let known = Lock<[ExactString: Set<String>?]>([:])
}

/// One statement of `EXPLAIN (FORMAT JSON)`'s output.
private struct ExplainedStatement: Decodable {
    let plan: PlanNode

    enum CodingKeys: String, CodingKey {
        case plan = "Plan"
    }
}

/// A node of a plan: what it scans, and the nodes under it (subplans and CTEs included).
private struct PlanNode: Decodable {
    let nodeType: String
    let relationName: String?
    let plans: [PlanNode]?

    enum CodingKeys: String, CodingKey {
        case nodeType = "Node Type"
        case relationName = "Relation Name"
        case plans = "Plans"
    }
}
