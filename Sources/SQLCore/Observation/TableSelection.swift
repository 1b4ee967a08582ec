/// Which tables, and which of their changed rows, an observer of commits wants to hear about:
/// what the live-query engine's index holds, and what a source needs to know to report only the
/// changes that concern it.
package struct TableSelection: Equatable, Sendable {
    /// The tables (ASCII-lowercased) some query reads.
    package var tables: Set<String> = []
    /// Some query's region is unknown (it has not run yet, or failed): every change concerns it.
    package var all = false
    /// The tables some query reads only part of: a change to one is matched row by row, so it
    /// should come with the values of its changed rows (`DatabaseChanges.rowChanges(in:)`).
    package var rowTables: Set<String> = []
    /// Those of `rowTables` whose readers read every row (but not every column): only an update
    /// can leave them unchanged, so inserted and deleted rows need not come with their values.
    package var updatesOnly: Set<String> = []

    package init(
        tables: Set<String> = [], all: Bool = false, rowTables: Set<String> = [], updatesOnly: Set<String> = []
    ) {
        self.tables = tables
        self.all = all
        self.rowTables = rowTables
        self.updatesOnly = updatesOnly
    }

    /// True when a change to `table` (ASCII-lowercased) concerns the observer.
    package func contains(_ table: String) -> Bool {
        all || tables.contains(table)
    }
}
