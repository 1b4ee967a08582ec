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
/// It records the tables its requests read, which is what a live value on PostgreSQL observes:
/// each named by its schema and name (``PostgreSQLDatabase/qualifiedName(schema:table:)``), as
/// the plan of a query on it resolves them (views to their tables, unqualified names through the
/// `search_path`).
final class PostgreSQLReadConnection: SQLConnection {
    let session: Session
    /// Where the tables of SQL texts are kept once learned: the live source's, for the fetches of
    /// its rounds; nil for a fetch whose region nobody reads.
    private let planTables: PlanTables?
    /// The tables (as the requests name them, byte for byte) of the requests run since the last
    /// ``recordingTables(_:)`` began.
    private var tables: Set<ExactString> = []

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
        tables.insert(ExactString(request.tableName))
        let cursor = OwnedRowCursor()
        return try session.runBlocking(rendered.sql, rendered.arguments).map { try decode(cursor.borrow($0)) }
    }

    /// Runs `body`, and returns what it produced with what its requests read: the tables of the
    /// plan of `SELECT * FROM` each table they name.
    func recordingTables<T>(_ body: () throws -> T) throws -> (T, DatabaseRegion) {
        tables = []
        let value = try body()
        var region = DatabaseRegion()
        for table in tables {
            region = region.union(try self.region(of: "SELECT * FROM " + String.quotedIdentifier(table.string), []))
        }
        return (value, region)
    }

    /// What `sql` reads: the tables of the plan PostgreSQL makes for it, asked once per SQL text
    /// until the schema changes; everything when the plan scans something other than tables (a
    /// function may read any table), or when nobody keeps the answer.
    func region(of sql: String, _ arguments: [DatabaseValue]) throws -> DatabaseRegion {
        guard let planTables else { return .everything }
        let tables: Set<String>?
        let (known, generation) = planTables.state.withLock { ($0.known[ExactString(sql)], $0.generation) }
        if let known {
            tables = known
        } else {
            tables = try tablesRead(by: sql, arguments)
            // A plan made before a schema change that arrived meanwhile may be stale: it serves
            // this fetch only, which the schema change refetches.
            planTables.state.withLock { state in
                if state.generation == generation { state.known[ExactString(sql)] = tables }
            }
        }
        return tables.map { DatabaseRegion(tables: $0) } ?? .everything
    }

    /// The tables `sql` reads, from the plan PostgreSQL makes for it; nil when the plan scans
    /// something other than tables.
    private func tablesRead(by sql: String, _ arguments: [DatabaseValue]) throws -> Set<String>? {
        // VERBOSE, for the schema of each table.
        guard let row = try session.runBlocking("EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments).first,
            case .text(let json) = row.value(at: 0),
            let plans = try? JSONDecoder().decode([ExplainedStatement].self, from: Data(json.utf8))
        else { return nil }
        var tables: Set<String> = []
        // Bounded, since the SQL is the user's: a plan deeper than this is read as unknown.
        func visit(_ node: PlanNode, depth: Int) -> Bool {
            guard depth < 200, node.nodeType != "Function Scan", node.nodeType != "Foreign Scan" else { return false }
            if let name = node.relationName {
                guard let schema = node.schema else { return false }
                tables.insert(PostgreSQLDatabase.qualifiedName(schema: schema, table: name))
            }
            return (node.plans ?? []).allSatisfy { visit($0, depth: depth + 1) }
        }
        return plans.allSatisfy { visit($0.plan, depth: 0) } ? tables : nil
    }
}

/// SQL text → the tables its plan reads (nil: something other than tables), kept by a live
/// source across its rounds and connections until the schema changes. Keyed by the SQL's bytes:
/// texts that differ only in Unicode normalization name other tables.
final class PlanTables: Sendable {
    struct State {
        var known: [ExactString: Set<String>?] = [:]
        /// Counts the schema changes, so that a plan made before one is not kept after it.
        var generation = 0
    }

    let state = Lock(State())

    /// Forgets every plan: the schema changed.
    func forget() {
        state.withLock { state in
            state.known = [:]
            state.generation += 1
        }
    }
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
    let schema: String?
    let plans: [PlanNode]?

    enum CodingKeys: String, CodingKey {
        case nodeType = "Node Type"
        case relationName = "Relation Name"
        case schema = "Schema"
        case plans = "Plans"
    }
}
