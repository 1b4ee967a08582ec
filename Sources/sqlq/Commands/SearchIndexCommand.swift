import ArgumentParser
import SQLite

/// `sqlq search-index TABLE COLUMN…`: the full-text index that `--search` uses, created with the
/// package's `FullTextIndex`, or rebuilt.
struct SearchIndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search-index",
        abstract: "Create a full-text index over columns of a table, or rebuild one.",
        discussion: """
            Creates an FTS5 table over the columns (it keeps no copy of the text: its content= \
            is the table), fills it from the rows already there, and adds the triggers that \
            keep it current after every insert, update and delete, whoever writes them. query \
            and watch then take --search on the table. The index is named TABLE_fts unless \
            --name says otherwise; its triggers are NAME_ai, NAME_ad and NAME_au.

            --rebuild refills an existing index from its table, for rows written while its \
            triggers were missing, and restores those triggers if they are missing or changed; \
            it needs no columns. --search refuses an index whose triggers are missing or \
            changed, naming this command.

            The table's rowids must have a name: its INTEGER PRIMARY KEY column, else rowid, \
            oid or _rowid_, one not taken by a column. A WITHOUT ROWID table, one whose \
            INTEGER PRIMARY KEY is declared DESC, and columns named rank, rowid or like the \
            index are refused.

            Examples:
              sqlq search-index notes title body --db app.sqlite
              sqlq query notes --search "swi conc" --db app.sqlite
              sqlq search-index notes --rebuild --db app.sqlite
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The table to index.")
    var table: String

    @Argument(help: "The columns to index, in the index's order.")
    var columns: [String] = []

    @Option(
        help: ArgumentHelp(
            "The index's name. Defaults to TABLE_fts; with --rebuild, to the index --search uses.",
            valueName: "name"))
    var name: String?

    @Flag(help: "Refill the table's existing index instead of creating one.")
    var rebuild = false

    func validate() throws {
        if !rebuild && columns.isEmpty {
            throw ValidationError(
                "search-index needs the columns to index, such as: sqlq search-index \(SearchIndex.shellWord(table)) title body"
            )
        }
    }

    func run() throws {
        guard database.path != nil else {
            throw CommandError.usage("search-index changes a database file: pass --db FILE or set SQLQ_DATABASE")
        }
        let output = OutputStream(fileDescriptor: 1)
        defer { output.flush() }
        do {
            let connection = try database.open(.write)
            if rebuild {
                let (index, restored) = try connection.write { db in try rebuildIndex(db) }
                let triggers = restored.isEmpty ? "" : ", and restored its triggers " + restored.joined(separator: ", ")
                output.writeLine("Rebuilt the full-text index \"\(index.name)\" of \"\(index.table)\"\(triggers).")
            } else {
                let index = try connection.write { db in try createIndex(db) }
                let columns = index.columns.joined(separator: ", ")
                output.writeLine(
                    "Created the full-text index \"\(index.name)\" of \"\(index.table)\" (\(columns)), "
                        + "and the triggers that keep it current.")
            }
        } catch {
            throw database.failure(error, outcome: rebuild ? "the index was not rebuilt" : "no index was created")
                ?? error
        }
    }

    /// Checks the names against the schema, then creates the index: in the transaction of `db`,
    /// so that nothing is left of a failure.
    private func createIndex(_ db: Database) throws -> FullTextIndex {
        let tableName = try db.checkTable(table)
        let kind = try db.fetchAll("SELECT type, sql FROM sqlite_master WHERE name = ?", [.text(tableName)]).first
        let (type, sql) = (try kind?[0] as String?, try kind?[1] as String?)
        if type == "view" {
            throw CommandError.usage(
                "\"\(tableName)\" is a view: an index is kept current by triggers on a table; index the table it reads")
        }
        if let sql, sql.utf8.starts(with: "CREATE VIRTUAL TABLE".utf8) {
            if SearchIndex(name: tableName, sql: sql) != nil {
                throw CommandError.usage(
                    "\"\(tableName)\" is a full-text index itself; search it with sqlq query "
                        + SearchIndex.shellWord(tableName) + " --search TEXT")
            }
            throw CommandError.usage(
                "\"\(tableName)\" is a virtual table, which cannot have the triggers that keep an index current")
        }
        let withoutRowID = try db.fetchOne(
            Int.self, "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(tableName)])
        if withoutRowID == 1 {
            throw CommandError.usage(
                "\"\(tableName)\" is a WITHOUT ROWID table: a full-text index finds rows by their rowid, which it has not"
            )
        }
        let schema = try TableSchema(db, table: tableName)
        var names: [String] = []
        for column in columns {
            let name = try schema.column(column, in: db).name
            if names.contains(where: { $0.sqliteNameMatches(name) }) {
                throw CommandError.usage("the column \"\(name)\" is named twice; an index has each column once")
            }
            names.append(name)
        }
        let indexName = name ?? tableName + "_fts"
        for column in names {
            // FTS5 reserves these for its own columns, and the index's name for the column that takes commands.
            if ["rank", "rowid"].contains(where: column.sqliteNameMatches) {
                throw CommandError.usage(
                    "FTS5 reserves the name \"\(column)\" for a column of its own, so an index cannot have a column of "
                        + "that name; rename the column (ALTER TABLE … RENAME COLUMN) to index it")
            }
            if column.sqliteNameMatches(indexName) {
                throw CommandError.usage(
                    "the column \"\(column)\" has the index's name, which FTS5 keeps for its commands; "
                        + "name the index otherwise with --name NAME")
            }
        }
        let index = FullTextIndex(
            indexName, table: tableName, columns: names, contentRowID: try rowIDColumn(db, tableName))
        try checkNamesAreFree(db, index)
        try db.create(index)
        return index
    }

    /// The name that reads the table's rowids exactly: its `INTEGER PRIMARY KEY` column, which
    /// keeps them through a `VACUUM`, else the first of `rowid`, `oid` and `_rowid_` that no column
    /// shadows. Throws when there is none: an index on another column would take other programs'
    /// text or NULL values as rowids, which fails their writes or corrupts the index.
    private func rowIDColumn(_ db: Database, _ table: String) throws -> String {
        if let alias = try SearchIndex.rowIDAlias(of: table, in: db) { return alias }
        let columns = try db.fetchAll("SELECT name, type, pk FROM pragma_table_xinfo(?)", [.text(table)])
        let keys = try columns.filter { try ($0[2] as Int) > 0 }
        if keys.count == 1, try (keys[0][1] as String).sqliteNameMatches("INTEGER") {
            // A lone INTEGER key that is no rowid alias was declared DESC.
            let key: String = try keys[0][0]
            throw CommandError.usage(
                "\"\(table)\".\"\(key)\" is INTEGER PRIMARY KEY DESC, which SQLite does not make the rowid: an index "
                    + "can follow neither its values (which may be text or NULL) nor the rowids (which VACUUM may "
                    + "renumber); recreate the table with \"\(key)\" INTEGER PRIMARY KEY, without DESC, to index it")
        }
        let names: [String] = try columns.map { try $0[0] }
        guard
            let rowID = ["rowid", "oid", "_rowid_"].first(where: { alias in
                !names.contains(where: alias.sqliteNameMatches)
            })
        else {
            throw CommandError.usage(
                "\"\(table)\" has columns named rowid, oid and _rowid_, which hide its rowids, so an index cannot name "
                    + "them; rename one of these columns (ALTER TABLE … RENAME COLUMN) to index the table")
        }
        return rowID
    }

    /// Throws when a table, view or index has the name of the index or of a table FTS5 creates for
    /// it, or a trigger the name of one of its triggers: an index already there is named as such.
    private func checkNamesAreFree(_ db: Database, _ index: FullTextIndex) throws {
        let existing = try db.fetchAll("SELECT type, name, sql FROM sqlite_master")
        for row in existing {
            let (type, name): (String, String) = (try row[0], try row[1])
            if type != "trigger" && name.sqliteNameMatches(index.name) {
                if let sql = try row[2] as String?, let other = SearchIndex(name: name, sql: sql),
                    other.contentTable?.sqliteNameMatches(index.table) == true
                {
                    throw CommandError.usage(
                        "the full-text index \"\(name)\" of \"\(index.table)\" exists already; --rebuild refills it, "
                            + "--name NAME creates another")
                }
                throw CommandError.usage(
                    "a \(type) named \"\(name)\" exists already; name the index otherwise with --name NAME")
            }
            let taken =
                type == "trigger"
                ? ["_ai", "_ad", "_au"] : ["_data", "_idx", "_content", "_docsize", "_config"]
            if taken.contains(where: { name.sqliteNameMatches(index.name + $0) }) {
                throw CommandError.usage(
                    "the index \"\(index.name)\" needs the name \"\(name)\" for a \(type == "trigger" ? "trigger" : "table"), "
                        + "and a \(type) has it already; name the index otherwise with --name NAME")
            }
        }
    }

    /// Refills the index that `--name` names or `--search` uses, from its table, after restoring
    /// the triggers that keep it current: returns it, and the names of the triggers restored.
    private func rebuildIndex(_ db: Database) throws -> (index: FullTextIndex, restored: [String]) {
        let tableName = try db.checkTable(table)
        let found: SearchIndex
        if let name {
            let indexName = try db.checkTable(name)
            guard let index = try SearchIndex.all(in: db).first(where: { $0.name == indexName }) else {
                throw CommandError.usage("\"\(indexName)\" is not a full-text index (an FTS5 table)")
            }
            guard index.name == tableName || index.contentTable?.sqliteNameMatches(tableName) == true else {
                throw CommandError.usage(
                    "the full-text index \"\(indexName)\" indexes \"\(index.contentTable ?? indexName)\", not \"\(tableName)\""
                )
            }
            found = index
        } else {
            guard let index = try SearchIndex.find(for: tableName, in: db) else {
                throw SearchIndex.missing(
                    try TableSchema(db, table: tableName), purpose: "",
                    databaseArguments: database.commandLineArguments)
            }
            found = index
        }
        let indexed = try db.columnNames(in: found.name)
        if !columns.isEmpty
            && (columns.count != indexed.count || !zip(columns, indexed).allSatisfy { $0.sqliteNameMatches($1) })
        {
            throw CommandError.usage(
                "the full-text index \"\(found.name)\" indexes \(indexed.joined(separator: ", ")), not "
                    + columns.joined(separator: ", ")
                    + "; to index other columns, create another index with --name NAME")
        }
        let index = FullTextIndex(
            found.name, table: found.contentTable ?? found.name, columns: indexed, contentRowID: found.contentRowID)
        var restored: [String] = []
        if found.contentTable != nil {
            // The triggers' names are the index's: one that is missing or differs is replaced, or
            // the next write would leave the index stale again.
            let existing = try found.triggers(in: db)
            for trigger in index.triggers {
                guard let sql = existing.first(where: { $0.name.sqliteNameMatches(trigger.name) }) else {
                    try db.executeScript(trigger.sql)
                    restored.append(trigger.name)
                    continue
                }
                if !SearchIndex.sameStatement(sql.sql, trigger.sql) {
                    try db.execute("DROP TRIGGER " + String.quotedIdentifier(sql.name))
                    try db.executeScript(trigger.sql)
                    restored.append(trigger.name)
                }
            }
        }
        try db.rebuild(index)
        return (index, restored)
    }
}
