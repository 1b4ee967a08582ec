import LiveQuery
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
/// `search_path`); and, for a fetch whose requests all filter one ordinary table, the rows their
/// filters may match (a ``RowScope``), which change notifications that carry rows are tested
/// against.
final class PostgreSQLReadConnection: SQLConnection {
    let session: Session
    /// Where the tables of SQL texts are kept once learned: the live source's, for the fetches of
    /// its rounds; nil for a fetch whose region nobody reads.
    private let planTables: PlanTables?
    /// The tables (as the requests name them, byte for byte) of the requests run since the last
    /// ``recordingTables(_:)`` began.
    private var tables: Set<ExactString> = []
    /// The table, filter and SQL of each request run since the last ``recordingTables(_:)``
    /// began.
    private var requests: [(table: String, predicate: SQLExpression?, sql: String, arguments: [DatabaseValue])] = []

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
        requests.append((request.tableName, request.select.predicate, rendered.sql, rendered.arguments))
        let cursor = OwnedRowCursor()
        return try session.runBlocking(rendered.sql, rendered.arguments).map { try decode(cursor.borrow($0)) }
    }

    /// Runs `body`, and returns what it produced with what its requests read: the tables of the
    /// plan of `SELECT * FROM` each table they name and of each request's own SQL (a filter's
    /// subquery may read other tables), and when every request is on one ordinary table that
    /// these plans read alone, the rows their filters may match (unless
    /// `SharedReaderCache.observesRows` is off).
    func recordingTables<T>(_ body: () throws -> T) throws -> (T, DatabaseRegion) {
        tables = []
        requests = []
        let value = try body()
        var region = DatabaseRegion()
        var planned: Set<String>? = []
        for table in tables {
            let read = try self.tables(of: "SELECT * FROM " + String.quotedIdentifier(table.string))
            region = region.union(read.map { DatabaseRegion(tables: $0) } ?? .everything)
            planned = planned.flatMap { planned in read.map { planned.union($0) } }
        }
        var plannedSQL: Set<ExactString> = []
        for request in requests where plannedSQL.insert(ExactString(request.sql)).inserted {
            let read = try self.tables(of: request.sql, request.arguments)
            region = region.union(read.map { DatabaseRegion(tables: $0) } ?? .everything)
            planned = planned.flatMap { planned in read.map { planned.union($0) } }
        }
        if SharedReaderCache.observesRows, tables.count == 1, let table = tables.first, let planned, planned.count == 1,
            let scope = try rowScope(of: table.string, planned: planned.first!)
        {
            region.rowScopes[planned.first!.sqliteFolded] = scope
        }
        return (value, region)
    }

    /// The rows of `table` that the recorded requests, all on it, may read; nil unless it is an
    /// ordinary table with a known layout, whose plan reads it alone (`planned`, the one table of
    /// the plan: not a view over another), and every filter compiles.
    private func rowScope(of table: String, planned: String) throws -> RowScope? {
        guard let layout = try layout(of: table), layout.qualifiedName.hasSameBytes(as: planned) else { return nil }
        var filters: [RowFilter]? = []
        for request in requests {
            guard let predicate = request.predicate else {
                // A request with no filter reads every row.
                filters = nil
                break
            }
            guard let node = RowFilterCompiler.compile(predicate, columnIndex: layout.index(of:)) else { return nil }
            filters?.append(RowFilter(root: node, columns: layout.traits, encoding: .utf8))
        }
        return RowScope(columnCount: layout.names.count, readColumns: nil, filters: filters)
    }

    /// The layout of `table` as a query on this connection names it, asked once until the schema
    /// changes; nil when its rows cannot be tested, or when nobody keeps the answer.
    private func layout(of table: String) throws -> TableLayout? {
        guard let planTables else { return nil }
        let key = ExactString(table)
        let (known, generation) = planTables.state.withLock { ($0.layouts[key], $0.generation) }
        if let known { return known }
        let layout = try readLayout(of: table)
        // As with plans: a layout read before a schema change that arrived meanwhile serves this
        // fetch only, which the schema change refetches.
        planTables.state.withLock { state in
            guard state.generation == generation else { return }
            state.layouts[key] = .some(layout)
            if let layout { state.layoutsOfTables[ExactString(layout.qualifiedName)] = layout }
        }
        return layout
    }

    /// What `sql` reads: the tables of the plan PostgreSQL makes for it, asked once per SQL text
    /// and arguments until the schema changes; everything when the plan scans something other
    /// than tables (a function may read any table), or when nobody keeps the answer.
    func region(of sql: String, _ arguments: [DatabaseValue]) throws -> DatabaseRegion {
        try tables(of: sql, arguments).map { DatabaseRegion(tables: $0) } ?? .everything
    }

    /// The tables (quoted schema and name) of the plan of `sql` with `arguments`, asked once per
    /// SQL text and arguments until the schema changes; nil when the plan scans something other
    /// than tables, or when nobody keeps the answer.
    ///
    /// Asked again for other arguments: PostgreSQL plans a statement for the values bound to it,
    /// and drops what they make irrelevant (`WHERE $1 AND x IN (SELECT … FROM b)` with `false`
    /// reads no table at all), so that a plan's tables hold for its own arguments only.
    private func tables(of sql: String, _ arguments: [DatabaseValue] = []) throws -> Set<String>? {
        guard let planTables else { return nil }
        let statement = PlanTables.Statement(sql: ExactString(sql), arguments: arguments)
        let (known, generation) = planTables.state.withLock { ($0.known[statement], $0.generation) }
        if let known { return known }
        let tables = try tablesRead(by: sql, arguments)
        // A plan made before a schema change that arrived meanwhile may be stale: it serves
        // this fetch only, which the schema change refetches.
        planTables.state.withLock { state in
            guard state.generation == generation else { return }
            // Arguments that change from fetch to fetch would grow it without end.
            if state.known.count >= PlanTables.maxStatements { state.known = [:] }
            state.known[statement] = tables
        }
        return tables
    }

    /// The tables `sql` reads, from the plan PostgreSQL makes for it, with the tables that each
    /// is a partition of (a write through them fires none of the partition's triggers); nil when
    /// the plan scans something other than tables. Throws when the commits of one of them would
    /// never be notified: a live value of `sql` would show an old value as current.
    private func tablesRead(by sql: String, _ arguments: [DatabaseValue]) throws -> Set<String>? {
        // VERBOSE, for the schema of each table.
        guard let row = try session.runBlocking("EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments).first,
            let tables = PlanTables.tables(inExplanation: row.value(at: 0))
        else { return nil }
        let generation = planTables?.state.withLock { $0.generation }
        var read: Set<String> = []
        var unknown: [String] = []
        for table in tables {
            let name = PostgreSQLDatabase.qualifiedName(schema: table.schema, table: table.table)
            if let followed = planTables?.state.withLock({ $0.followed[ExactString(name)] }) {
                read.formUnion(followed)
            } else if !unknown.contains(name) {
                unknown.append(name)
            }
        }
        guard !unknown.isEmpty else { return read }
        let status = PostgreSQLDatabase.notificationStatus(
            try session.runBlocking(
                PostgreSQLDatabase.notificationStatusSQL, PostgreSQLDatabase.notificationStatusArguments(unknown)))
        if let missing = status.first(where: { !$0.followed }) {
            throw PostgreSQLError(
                kind: .other,
                message:
                    "\(PostgreSQLDatabase.qualifiedName(schema: missing.schema, table: missing.table)) has no change "
                    + "notifications, or they are disabled, so a live value that reads it would never see it change: "
                    + "install them with installChangeNotifications(on:schema:) (sqlq install-notifications)",
                sql: sql)
        }
        var followed: [ExactString: Set<String>] = [:]
        for name in unknown { followed[ExactString(name)] = [name] }
        for row in status where unknown.indices.contains(row.position) {
            followed[ExactString(unknown[row.position]), default: []].insert(
                PostgreSQLDatabase.qualifiedName(schema: row.schema, table: row.table))
        }
        for names in followed.values { read.formUnion(names) }
        planTables?.state.withLock { state in
            // Forgotten with the plans, at the next schema change; one read before it is not kept.
            guard state.generation == generation else { return }
            for (name, names) in followed { state.followed[name] = names }
        }
        return read
    }
}

/// SQL text and arguments → the tables its plan reads (nil: something other than tables), and
/// the layouts of tables, kept by a live source across its rounds and connections until the
/// schema changes. Keyed by bytes: texts that differ only in Unicode normalization name other
/// tables.
final class PlanTables: Sendable {
    /// A statement as PostgreSQL plans it: its text and the values bound to it, both compared
    /// byte for byte.
    struct Statement: Hashable {
        let sql: ExactString
        let arguments: [DatabaseValue]

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.sql == rhs.sql && lhs.arguments.count == rhs.arguments.count
                && zip(lhs.arguments, rhs.arguments).allSatisfy { $0.isIdentical(to: $1) }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(sql)
            hasher.combine(arguments.count)
            for argument in arguments { argument.hashIdentity(into: &hasher) }
        }
    }

    /// The most statements kept: past it they are all forgotten, and asked again as needed.
    static let maxStatements = 50_000

    struct State {
        var known: [Statement: Set<String>?] = [:]
        /// Table, as a request names it → its layout (nil: its rows cannot be tested).
        var layouts: [ExactString: TableLayout?] = [:]
        /// Table, quoted with its schema → its layout: what the rows of its notifications become.
        var layoutsOfTables: [ExactString: TableLayout] = [:]
        /// Table of a plan, quoted with its schema, whose commits are notified → it and the tables
        /// it is a partition of.
        var followed: [ExactString: Set<String>] = [:]
        /// Counts the schema changes, so that a plan made before one is not kept after it.
        var generation = 0
    }

    let state = Lock(State())

    /// Forgets every plan and layout: the schema changed.
    func forget() {
        state.withLock { state in
            state.known = [:]
            state.layouts = [:]
            state.layoutsOfTables = [:]
            state.followed = [:]
            state.generation += 1
        }
    }

    /// The tables of `EXPLAIN (VERBOSE, FORMAT JSON)`'s output, in the order the plan meets
    /// them; nil when it is not such output, or when the plan scans something other than tables
    /// (a function, a foreign table), so that what it reads is unknown.
    static func tables(inExplanation explanation: DatabaseValue) -> [(schema: String, table: String)]? {
        guard case .text(let json) = explanation,
            let plans = try? JSONDecoder().decode([ExplainedStatement].self, from: Data(json.utf8))
        else { return nil }
        var tables: [(schema: String, table: String)] = []
        // Bounded, since the SQL is the user's: a plan deeper than this is read as unknown.
        func visit(_ node: PlanNode, depth: Int) -> Bool {
            guard depth < 200, node.nodeType != "Function Scan", node.nodeType != "Foreign Scan" else { return false }
            if let name = node.relationName {
                guard let schema = node.schema else { return false }
                tables.append((schema, name))
            }
            return (node.plans ?? []).allSatisfy { visit($0, depth: depth + 1) }
        }
        return plans.allSatisfy { visit($0.plan, depth: 0) } ? tables : nil
    }

    /// The layout of the table quoted with its schema (`qualifiedName`), if a fetch learned it
    /// since the schema last changed.
    func layout(ofTable qualifiedName: String) -> TableLayout? {
        state.withLock { $0.layoutsOfTables[ExactString(qualifiedName)] }
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
