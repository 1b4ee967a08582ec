import SQLCore

/// A listening connection's place in the change log (``PostgreSQLDatabase/changeLog``): which
/// records it has read, and which transactions were still in progress when it last read.
///
/// A record's id comes from a sequence when its statement runs, but the record becomes visible
/// only when its transaction commits, in any order. So each read takes the records past the
/// highest id read so far, and those of the transactions that its previous read's snapshot saw
/// in progress: any record committed since the previous read has one or the other (a
/// transaction that wrote before that snapshot and was in progress is in its list; one that
/// wrote after it gets a higher id). No record is read twice, and none is missed.
struct ChangeLogCursor {
    /// The highest id read.
    private var lastID: Int64
    /// The top-level transactions in progress at the last read's snapshot, as decimal `xid8`s.
    private(set) var inProgress: [String]
    /// The log's table, to tell a log dropped and created again (whose ids start over).
    private let table: Int64
    /// When the log was last read.
    private(set) var lastRead: ContinuousClock.Instant
    /// When the log was last pruned.
    private var lastPruned: ContinuousClock.Instant

    /// Why reading must start over: the log was dropped, or dropped and created again.
    struct LogReplaced: Error {}

    /// Records readable for this long are pruned (``PostgreSQLDatabase/pruneFunction``); a
    /// listener that has not read for half as long (a process stopped, a connection stalled)
    /// takes every value as changed.
    static let retention = Duration.seconds(60)

    /// How often a listener prunes the log.
    static let pruneInterval = Duration.seconds(10)

    /// The cursor at the log's end now, or nil when the database has no change log.
    static func start(on session: Session) async throws -> ChangeLogCursor? {
        guard let table = try await logTable(on: session) else { return nil }
        let rows = try await session.run(
            """
            SELECT pg_catalog.pg_current_snapshot()::text, coalesce(max(id), 0)
            FROM \(PostgreSQLDatabase.readableChangeLog)
            """,
            []
        ).rows
        guard let row = rows.first, case .text(let snapshot) = row.value(at: 0),
            case .integer(let lastID) = row.value(at: 1)
        else { throw PostgreSQLError(kind: .other, message: "the change log's end could not be read") }
        let now = ContinuousClock.now
        return ChangeLogCursor(
            lastID: lastID, inProgress: try Self.parse(snapshot), table: table, lastRead: now, lastPruned: now)
    }

    /// The log table's OID, or nil when it does not exist.
    private static func logTable(on session: Session) async throws -> Int64? {
        let rows = try await session.run(
            "SELECT pg_catalog.to_regclass($1)::oid::int8", [.text(PostgreSQLDatabase.changeLog)]
        ).rows
        guard case .integer(let oid) = rows.first?.value(at: 0) else { return nil }
        return oid
    }

    /// The payloads of the records committed since the last read that this session's role may
    /// see (``PostgreSQLDatabase/readableChangeLog``), in the order of their ids, each naming
    /// its table as ``PostgreSQLDatabase/changeChannel`` describes (nil when the table is gone,
    /// or the record names none: any table may have changed). Throws ``LogReplaced`` when the
    /// log is gone or is another table now.
    ///
    /// The session's `search_path` must be `pg_catalog` alone, so that a table's name always
    /// comes with its schema.
    mutating func read(on session: Session) async throws -> [String?] {
        let list = "{" + inProgress.joined(separator: ",") + "}"
        let rows: [Row]
        do {
            // One statement, so one snapshot: the records and the transactions in progress
            // are those of the same moment. The triggers record a table by its OID, named here
            // as it is now (a table renamed since is a schema change, which refetches every
            // value anyway) by `regclass`, which quotes each part as needed.
            rows = try await session.run(
                """
                SELECT pg_catalog.pg_current_snapshot()::text, pg_catalog.to_regclass($3)::oid::int8, NULL::int8, NULL::text
                UNION ALL
                (SELECT NULL, NULL, id,
                    head::int8::oid::regclass::text || substr(payload, length(head) + 1)
                 FROM \(PostgreSQLDatabase.readableChangeLog) CROSS JOIN LATERAL (SELECT split_part(payload, ' ', 1) AS head) AS record
                 WHERE id > $1 OR xid = ANY($2::text::xid8[]) ORDER BY id)
                """, [.integer(lastID), .text(list), .text(PostgreSQLDatabase.changeLog)]
            ).rows
        } catch let error as PostgreSQLError where error.sqlState == "42P01" {
            throw LogReplaced()
        }
        guard let first = rows.first, case .text(let snapshot) = first.value(at: 0) else {
            throw PostgreSQLError(kind: .other, message: "the change log's snapshot could not be read")
        }
        guard case .integer(table) = first.value(at: 1) else { throw LogReplaced() }
        var records: [(id: Int64, payload: String?)] = []
        for row in rows.dropFirst() {
            guard case .integer(let id) = row.value(at: 2) else { continue }
            let payload: String? = if case .text(let payload) = row.value(at: 3) { payload } else { nil }
            records.append((id, payload))
        }
        // A union's order is not promised.
        records.sort { $0.id < $1.id }
        lastID = max(lastID, records.last?.id ?? lastID)
        inProgress = try Self.parse(snapshot)
        lastRead = .now
        return records.map(\.payload)
    }

    /// Runs ``PostgreSQLDatabase/pruneFunction`` once per ``pruneInterval``. A failure (a log
    /// of an earlier version, without the function) leaves the pruning to other listeners.
    mutating func pruneIfDue(on session: Session) async {
        let now = ContinuousClock.now
        guard now - lastPruned >= Self.pruneInterval else { return }
        lastPruned = now
        _ = try? await session.run("SELECT FROM \(PostgreSQLDatabase.pruneFunction)", [])
    }

    /// The in-progress list of a snapshot's text, `xmin:xmax:xip,…`: decimal numbers only,
    /// since the list goes back to the server inside an array literal.
    static func parse(_ snapshot: String) throws -> [String] {
        let parts = snapshot.split(separator: ":", omittingEmptySubsequences: false)
        let list =
            parts.count == 3 && !parts[2].isEmpty
            ? parts[2].split(separator: ",", omittingEmptySubsequences: false) : []
        func isNumber(_ text: Substring) -> Bool {
            !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard parts.count == 3, isNumber(parts[0]), list.allSatisfy(isNumber) else {
            throw PostgreSQLError(kind: .other, message: "unexpected snapshot from the server: \(snapshot)")
        }
        return list.map(String.init)
    }
}
