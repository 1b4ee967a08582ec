/// An FTS5 index over some columns of a table, kept current by triggers: what SQLite's
/// documentation calls an external-content table.
///
/// The index stores no copy of the text: its columns read the content table's, and three
/// triggers (after insert, delete and update on the content table) feed it each change, with
/// FTS5's `'delete'` command for the old values.
///
/// ```swift
/// let index = FullTextIndex("docs_fts", table: "docs", columns: ["title", "body"], contentRowID: "id")
/// try migrator.registerMigration("search") { db in try db.create(index) }   // checks the names
/// try migrator.registerMigration("search", sql: index.creationSQL)           // or as SQL text
/// ```
///
/// `INSERT OR REPLACE` (and `REPLACE`) deletes the row it replaces without firing delete
/// triggers unless `PRAGMA recursive_triggers` is on, which leaves the old row's words in the
/// index: turn it on in connections that replace rows of the content table, or use an upsert
/// (`ON CONFLICT … DO UPDATE`), which fires the update trigger.
public struct FullTextIndex: Hashable, Sendable {
    /// The FTS5 table's name, unquoted.
    public let name: String
    /// The content table, unquoted.
    public let table: String
    /// The indexed columns of ``table``, in the index's column order (the order that
    /// ``FullTextSearch/snippet(column:open:close:ellipsis:tokens:)`` numbers them in).
    public let columns: [String]
    /// The content table's integer column that the index's rowids stand for: `rowid`, or a column
    /// declared `INTEGER PRIMARY KEY`.
    public let contentRowID: String
    /// FTS5's `tokenize` option, such as `porter unicode61 remove_diacritics 2`; nil for the
    /// default (`unicode61`).
    public let tokenize: String?

    /// An index named `name` over `columns` of `table`.
    public init(
        _ name: String, table: String, columns: [String], contentRowID: String = "rowid", tokenize: String? = nil
    ) {
        self.name = name
        self.table = table
        self.columns = columns
        self.contentRowID = contentRowID
        self.tokenize = tokenize
    }

    /// A search with this index, of the content table's rows: the request reads ``table``.
    public func search(_ pattern: FTS5Pattern) -> FullTextSearch {
        FullTextSearch(pattern, index: name, contentTable: table, contentRowID: contentRowID)
    }

    /// The SQL that creates the index and its triggers and fills it from the table's rows: for a
    /// `.sql` migration. Every name is quoted; none is checked (`Database.create(_:)` checks).
    public var creationSQL: String {
        let index = String.quotedIdentifier(name)
        let list = columns.map(String.quotedIdentifier).joined(separator: ", ")
        var options = "content=\(String.quotedLiteral(table)), content_rowid=\(String.quotedLiteral(contentRowID))"
        if let tokenize { options += ", tokenize=\(String.quotedLiteral(tokenize))" }
        return
            (["CREATE VIRTUAL TABLE \(index) USING fts5(\(list), \(options));"]
            + triggers.map { $0.sql + ";" } + [rebuildSQL]).joined(separator: "\n")
    }

    /// The triggers that keep the index current, `NAME_ai`, `NAME_ad` and `NAME_au`: each name,
    /// unquoted, and its `CREATE TRIGGER` statement as the schema stores it (with no `;`).
    public var triggers: [(name: String, sql: String)] {
        let index = String.quotedIdentifier(name)
        let content = String.quotedIdentifier(table)
        let names = columns.map(String.quotedIdentifier)
        let list = names.joined(separator: ", ")
        func values(_ row: String) -> String {
            ([row + "." + String.quotedIdentifier(contentRowID)] + names.map { row + "." + $0 })
                .joined(separator: ", ")
        }
        let insert = "INSERT INTO \(index)(rowid, \(list)) VALUES (\(values("new")));"
        let delete = "INSERT INTO \(index)(\(index), rowid, \(list)) VALUES ('delete', \(values("old")));"
        func trigger(_ suffix: String, _ event: String, _ body: [String]) -> (name: String, sql: String) {
            let header = "CREATE TRIGGER \(String.quotedIdentifier(name + suffix)) AFTER \(event) ON \(content) BEGIN"
            return (name + suffix, ([header] + body.map { "  " + $0 } + ["END"]).joined(separator: "\n"))
        }
        return [
            trigger("_ai", "INSERT", [insert]), trigger("_ad", "DELETE", [delete]),
            trigger("_au", "UPDATE", [delete, insert]),
        ]
    }

    /// The SQL that rebuilds the index from the content table: `INSERT INTO idx(idx)
    /// VALUES('rebuild')`, for rows written while the triggers were missing.
    public var rebuildSQL: String {
        let index = String.quotedIdentifier(name)
        return "INSERT INTO \(index)(\(index)) VALUES ('rebuild');"
    }
}
