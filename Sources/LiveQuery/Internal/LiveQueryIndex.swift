/// Which queries read what: how a ``LiveQueryEngine`` finds the queries a change concerns with work
/// in proportion to them, not to all the queries it keeps.
///
/// Queries are known by the engine's identifiers. A query enters as reading everything, until its
/// first fetch reports its region.
struct LiveQueryIndex {
    /// Table (ASCII-lowercased) → the queries whose region reads it.
    private(set) var readersOfTable: [String: Set<Int>] = [:]
    /// The queries whose region is unknown: every change may change them.
    private(set) var readersOfEverything: Set<Int> = []
    /// Table → the queries that read part of it, with that part.
    private(set) var scopesOfTable: [String: [Int: RowScope]] = [:]
    /// Table → the queries that read it whole: those of `readersOfTable` not in `scopesOfTable`,
    /// kept apart so that a commit finds them without testing the others.
    private var wholeReadersOfTable: [String: Set<Int>] = [:]
    /// Table → column → value → the scoped queries whose filter requires that value there: a
    /// changed row finds them without testing the others.
    private var readersOfValue: [String: [Int: [DatabaseValue: Set<Int>]]] = [:]
    /// Table → the scoped queries not in `readersOfValue`, tested for every changed row.
    private var unindexedScopes: [String: Set<Int>] = [:]
    /// Table → the columns whose old NULL may stand for a default (``RowScope/defaultedColumns``):
    /// an old row with NULL there is tested by every reader indexed on the column. Kept while the
    /// table has scoped readers.
    private var defaultedColumnsOfTable: [String: Set<Int>] = [:]

    /// How many queries the index lists.
    var count: Int { readersOfTable.values.reduce(readersOfEverything) { $0.union($1) }.count }

    /// What a source should report: the changes to the tables of the index.
    var tables: TableSelection {
        TableSelection(
            tables: Set(readersOfTable.keys),
            all: !readersOfEverything.isEmpty,
            rowTables: Set(scopesOfTable.keys),
            // Where no reader filters rows, only an update can skip a reader (by its columns).
            updatesOnly: Set(scopesOfTable.filter { $0.value.values.allSatisfy { $0.filters == nil } }.keys))
    }

    mutating func insert(_ id: Int, _ region: DatabaseRegion) {
        if region.isEverything {
            readersOfEverything.insert(id)
        } else {
            for table in region.tables.keys {
                readersOfTable[table, default: []].insert(id)
                guard let scope = region.rowScopes[table] else {
                    wholeReadersOfTable[table, default: []].insert(id)
                    continue
                }
                scopesOfTable[table, default: [:]][id] = scope
                if !scope.defaultedColumns.isEmpty {
                    defaultedColumnsOfTable[table, default: []].formUnion(scope.defaultedColumns)
                }
                if let (column, values) = Self.equalityKeys(of: scope) {
                    for value in values {
                        readersOfValue[table, default: [:]][column, default: [:]][value, default: []].insert(id)
                    }
                } else {
                    unindexedScopes[table, default: []].insert(id)
                }
            }
        }
    }

    mutating func remove(_ id: Int, _ region: DatabaseRegion) {
        if region.isEverything {
            readersOfEverything.remove(id)
        } else {
            for table in region.tables.keys {
                readersOfTable[table]?.remove(id)
                if readersOfTable[table]?.isEmpty == true { readersOfTable.removeValue(forKey: table) }
                guard let scope = scopesOfTable[table]?.removeValue(forKey: id) else {
                    wholeReadersOfTable[table]?.remove(id)
                    if wholeReadersOfTable[table]?.isEmpty == true {
                        wholeReadersOfTable.removeValue(forKey: table)
                    }
                    continue
                }
                if scopesOfTable[table]?.isEmpty == true {
                    scopesOfTable.removeValue(forKey: table)
                    defaultedColumnsOfTable.removeValue(forKey: table)
                }
                if let (column, values) = Self.equalityKeys(of: scope) {
                    for value in values {
                        readersOfValue[table]?[column]?[value]?.remove(id)
                        if readersOfValue[table]?[column]?[value]?.isEmpty == true {
                            readersOfValue[table]?[column]?.removeValue(forKey: value)
                        }
                    }
                    if readersOfValue[table]?[column]?.isEmpty == true {
                        readersOfValue[table]?.removeValue(forKey: column)
                    }
                    if readersOfValue[table]?.isEmpty == true { readersOfValue.removeValue(forKey: table) }
                } else {
                    unindexedScopes[table]?.remove(id)
                    if unindexedScopes[table]?.isEmpty == true { unindexedScopes.removeValue(forKey: table) }
                }
            }
        }
    }

    /// The column and values a scope's one filter requires, if it has one.
    private static func equalityKeys(of scope: RowScope) -> (column: Int, values: [DatabaseValue])? {
        guard let filters = scope.filters, filters.count == 1 else { return nil }
        return filters[0].equalityKeys
    }

    /// The queries reading `table` that the changed `rows` may affect. The work grows with the
    /// rows and the readers they may match, not with the readers of the table.
    func affected(by rows: [DatabaseChanges.RowChange], in table: String) -> Set<Int> {
        let scopes = scopesOfTable[table] ?? [:]
        var affected = wholeReadersOfTable[table] ?? []
        let indexed = readersOfValue[table] ?? [:]
        let unindexed = unindexedScopes[table] ?? []
        let defaulted = defaultedColumnsOfTable[table] ?? []
        func test(_ id: Int, _ row: DatabaseChanges.RowChange) {
            guard !affected.contains(id), let scope = scopes[id] else { return }
            if scope.isAffected(old: row.old, new: row.new) { affected.insert(id) }
        }
        for row in rows {
            for (column, readers) in indexed {
                for (values, isOld) in [(row.old, true), (row.new, false)] {
                    guard let values else { continue }
                    // A row of another shape than the one indexed, or an old NULL that may stand
                    // for the column's default: every reader tests it.
                    guard column < values.count, !(isOld && values[column].isNull && defaulted.contains(column)) else {
                        for set in readers.values { for id in set { test(id, row) } }
                        continue
                    }
                    if let ids = readers[RowFilter.indexKey(values[column])] { for id in ids { test(id, row) } }
                }
            }
            for id in unindexed { test(id, row) }
        }
        return affected
    }
}
