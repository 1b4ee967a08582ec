import CSQLite

extension Database {
    /// Runs `body`, and returns its result with what the statements it ran read: the union of
    /// their read regions. For code that reads through any number of statements, such as a
    /// `FetchKeyRequest`, whose region is not known in advance.
    ///
    /// ```swift
    /// let (items, region) = try db.recordingReadRegion { db in
    ///     try Table("items").filter(Column("done") == false).fetchAll(db)
    /// }
    /// region   // items(done, …)
    /// ```
    ///
    /// With `scopingRows`, the region also says which part of each ordinary table is read
    /// (`DatabaseRegion.rowScopes`): the columns, and for the statements that query-builder
    /// requests ran, the rows their filters may match.
    ///
    /// While `body` runs, the connection's statement trace (`sqlite3_trace_v2`) is in use.
    /// Recordings may nest.
    public func recordingReadRegion<T>(scopingRows: Bool = false, _ body: (Database) throws -> T) throws -> (
        T, DatabaseRegion
    ) {
        let recording = StatementRecording()
        let value: T
        do {
            if regionTrace.recordings.isEmpty {
                sqlite3_trace_v2(
                    handle, UInt32(SQLITE_TRACE_STMT),
                    { _, context, statement, _ in
                        guard let context, let statement else { return 0 }
                        Unmanaged<ReadRegionTrace>.fromOpaque(context).takeUnretainedValue()
                            .statementStarted(OpaquePointer(statement))
                        return 0
                    }, Unmanaged.passUnretained(regionTrace).toOpaque())
            }
            regionTrace.recordings.append(recording)
            defer {
                regionTrace.recordings.removeLast()
                if regionTrace.recordings.isEmpty {
                    sqlite3_trace_v2(handle, 0, nil, nil)
                    regionTrace.builderStatement = nil
                }
            }
            value = try body(self)
        }
        var region = DatabaseRegion()
        // The statements may be gone; their SQL finds them, or prepares them again, in the cache.
        for sql in recording.sql {
            var statementRegion = try cachedStatement(sql.string).readRegion
            if scopingRows { try scope(&statementRegion, filters: recording.filters[sql]) }
            region = region.union(statementRegion)
        }
        return (value, region)
    }

    /// Adds the row scopes of `region`'s tables: for a statement run only by query-builder
    /// requests on one table, with their filters; for any other, with its columns alone.
    private func scope(_ region: inout DatabaseRegion, filters: [(table: String, predicate: SQLExpression?)]?) throws {
        let builderTable = filters?.first?.table.sqliteFolded
        let isBuilderOnly =
            filters != nil && region.tables.count == 1 && region.tables.keys.first == builderTable
            && filters!.allSatisfy { $0.table.sqliteFolded == builderTable }
        for (table, columns) in region.tables {
            var predicates: [SQLExpression]?
            if isBuilderOnly, let filters, !filters.contains(where: { $0.predicate == nil }) {
                predicates = filters.map { $0.predicate! }
            }
            region.rowScopes[table] = try rowScope(of: table, columns: columns, filters: predicates)
        }
    }
}

/// The SQL of the statements a connection started while a read region was being recorded, by
/// its bytes (as the statement cache keys it).
final class StatementRecording {
    var sql: Set<ExactString> = []
    /// SQL → the filters of the query-builder requests that ran it; absent when any run of that
    /// SQL came from elsewhere.
    var filters: [ExactString: [(table: String, predicate: SQLExpression?)]] = [:]
    /// SQL that ran from elsewhere than a query-builder request at least once.
    var otherSQL: Set<ExactString> = []
}

/// A connection's read-region recordings in progress, fed by the statement trace while any runs.
final class ReadRegionTrace {
    /// The recordings in progress, innermost last.
    var recordings: [StatementRecording] = []
    /// The statement a query-builder request bound last while a recording was in progress, with
    /// its table and filter: when that statement starts, the recording learns the filter.
    var builderStatement: (handle: OpaquePointer, table: String, predicate: SQLExpression?)?
    /// The row layouts this connection found, as of the schema version they were read at: a
    /// refetch that scopes its rows reads them again only after the schema changed. Keyed by the
    /// table name's bytes: names that differ only in Unicode normalization are other tables.
    var rowLayouts: [ExactString: (schemaVersion: Int64, layout: RowLayout?)] = [:]

    /// Called by the statement trace when a statement starts (inside `sqlite3_step`, so it only
    /// reads the statement's text).
    func statementStarted(_ statement: OpaquePointer) {
        guard let text = sqlite3_sql(statement) else { return }
        let sql = ExactString(String(cString: text))
        let builder = builderStatement.flatMap { $0.handle == statement ? $0 : nil }
        builderStatement = nil
        for recording in recordings {
            recording.sql.insert(sql)
            if let builder, !recording.otherSQL.contains(sql) {
                recording.filters[sql, default: []].append((builder.table, builder.predicate))
            } else {
                recording.otherSQL.insert(sql)
                recording.filters.removeValue(forKey: sql)
            }
        }
    }
}
