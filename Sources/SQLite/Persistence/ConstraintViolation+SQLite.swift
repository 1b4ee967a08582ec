import CSQLite

// SQLite's constraint failures as the violations every database reports.
extension ConstraintViolation {
    /// The violation that `error` reports, or nil when it is not a constraint failure.
    /// `table` is the table the statement writes.
    public init?(_ error: SQLiteError, table: String) {
        guard error.code == SQLITE_CONSTRAINT else { return nil }
        let kind: Kind
        // Extended codes from sqlite3.h (SQLITE_CONSTRAINT_*), spelled out because Swift does not
        // import macros built from other macros.
        switch error.extendedCode {
        case 2067: kind = .unique
        case 1555, 2579: kind = .primaryKey
        case 1299: kind = .notNull
        case 275: kind = .check
        case 787: kind = .foreignKey
        case 3091: kind = .datatype
        case 1811: kind = .trigger
        default: kind = .other
        }
        self.init(
            kind: kind, table: table, columns: [], constraint: nil, message: error.message, sql: error.sql,
            underlying: error)
        let message = error.message
        switch kind {
        case .unique, .primaryKey, .notNull:
            // "UNIQUE constraint failed: items.list_id, items.title"
            if let colon = message.utf8Range(of: "failed: ") {
                let names = message[colon.upperBound...].split(separator: ",").map {
                    String($0.drop(while: { $0 == " " }))
                }
                setColumns(names, knownTable: table)
            }
        case .datatype:
            // "cannot store TEXT value in INTEGER column items.priority"
            if let column = message.utf8Range(of: " column ", backwards: true) {
                setColumns([String(message[column.upperBound...])], knownTable: table)
            }
        case .check:
            // "CHECK constraint failed: price > 0", or the constraint's name.
            if let colon = message.utf8Range(of: "failed: ") { constraint = String(message[colon.upperBound...]) }
        case .trigger:
            constraint = message
        case .foreignKey, .other:
            break
        }
    }

    /// `error` as a `ConstraintViolation` when it is one, else unchanged.
    static func mapping(_ error: any Error, table: String) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        return ConstraintViolation(error, table: table) ?? error
    }
}
