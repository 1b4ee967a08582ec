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
    /// The oldest transaction still in progress (a snapshot's `xmin`), sampled once per
    /// ``pruneInterval``: every transaction below one sampled ``retention`` ago had ended by
    /// then, so its records have been readable for that long.
    private var horizons: [(at: ContinuousClock.Instant, xmin: String)]

    /// Why reading must start over: the log was dropped, or dropped and created again.
    struct LogReplaced: Error {}

    /// Records readable for this long are pruned; a listener that has not read for half as long
    /// (a process stopped, a connection stalled) takes every value as changed.
    static let retention = Duration.seconds(60)

    /// How often a listener prunes the log.
    static let pruneInterval = Duration.seconds(10)

    /// The cursor at the log's end now, or nil when the database has no change log.
    static func start(on session: Session) async throws -> ChangeLogCursor? {
        guard let table = try await logTable(on: session) else { return nil }
        let rows = try await session.run(
            "SELECT pg_catalog.pg_current_snapshot()::text, coalesce(max(id), 0) FROM \(PostgreSQLDatabase.changeLog)",
            []
        ).rows
        guard let row = rows.first, case .text(let snapshot) = row.value(at: 0),
            case .integer(let lastID) = row.value(at: 1)
        else { throw PostgreSQLError(kind: .other, message: "the change log's end could not be read") }
        let (xmin, inProgress) = try Self.parse(snapshot)
        let now = ContinuousClock.now
        return ChangeLogCursor(
            lastID: lastID, inProgress: inProgress, table: table, lastRead: now, horizons: [(now, xmin)])
    }

    /// The log table's OID, or nil when it does not exist.
    private static func logTable(on session: Session) async throws -> Int64? {
        let rows = try await session.run(
            "SELECT pg_catalog.to_regclass($1)::oid::int8", [.text(PostgreSQLDatabase.changeLog)]
        ).rows
        guard case .integer(let oid) = rows.first?.value(at: 0) else { return nil }
        return oid
    }

    /// The payloads of the records committed since the last read, in the order of their ids,
    /// each naming its table as ``PostgreSQLDatabase/changeChannel`` describes (nil when the
    /// table is gone). Throws ``LogReplaced`` when the log is gone or is another table now.
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
            // value anyway) by `regclass`, which quotes each part as needed. Payloads that start
            // with a quoted name are those of earlier versions' triggers.
            rows = try await session.run(
                """
                SELECT pg_catalog.pg_current_snapshot()::text, pg_catalog.to_regclass($3)::oid::int8, NULL::int8, NULL::text
                UNION ALL
                (SELECT NULL, NULL, id,
                    CASE WHEN head !~ '^[0-9]{1,10}$' THEN payload
                    WHEN head::int8 <= 4294967295 THEN head::int8::oid::regclass::text || substr(payload, length(head) + 1)
                    END
                 FROM \(PostgreSQLDatabase.changeLog) CROSS JOIN LATERAL (SELECT split_part(payload, ' ', 1) AS head) AS record
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
        let (xmin, inProgress) = try Self.parse(snapshot)
        self.inProgress = inProgress
        lastRead = .now
        if let last = horizons.last, lastRead - last.at >= Self.pruneInterval { horizons.append((lastRead, xmin)) }
        return records.map(\.payload)
    }

    /// Deletes the records of the transactions that had all ended ``retention`` ago, when a
    /// horizon that old has been sampled since the last prune. A failure (a role without
    /// `DELETE` on the log) leaves the pruning to other listeners.
    mutating func pruneIfDue(on session: Session) async {
        let now = ContinuousClock.now
        guard let index = horizons.lastIndex(where: { now - $0.at >= Self.retention }) else { return }
        let horizon = horizons[index].xmin
        horizons.removeFirst(index + 1)
        // An anchor for the next samples, which come one interval after the last.
        if horizons.isEmpty { horizons.append((now, horizon)) }
        _ = try? await session.run(
            "DELETE FROM \(PostgreSQLDatabase.changeLog) WHERE xid < $1::text::xid8", [.text(horizon)])
    }

    /// The `xmin` and the in-progress list of a snapshot's text, `xmin:xmax:xip,…`: decimal
    /// numbers only, since the list goes back to the server inside an array literal.
    static func parse(_ snapshot: String) throws -> (xmin: String, inProgress: [String]) {
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
        return (String(parts[0]), list.map(String.init))
    }
}
