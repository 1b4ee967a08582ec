import QueryBuilder
import SQLCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A write that broke a constraint of the schema: which kind, in which table, on which columns
/// when SQLite names them, with the SQL. The statement changed nothing.
///
/// ```swift
/// do {
///     try item.insert(db)
/// } catch let violation as ConstraintViolation where violation.kind == .unique {
///     print(violation)
///     // UNIQUE constraint failed in "items" on "title": another row has the same value
///     //   SQL: INSERT INTO "items" ("id", "title", "done") VALUES (?, ?, ?)
/// }
/// ```
///
/// Record writes and `deleteAll` / `updateAll` throw it in place of the error the database
/// reported (SQLite's `SQLiteError`, PostgreSQL's `PostgreSQLError`), which stays available as
/// ``underlying``: code catching violations runs on either database.
public struct ConstraintViolation: Error, Hashable, Sendable {
    /// The kind of constraint.
    public enum Kind: String, Hashable, Sendable {
        /// A `UNIQUE` constraint or unique index: another row has the same values.
        case unique = "UNIQUE"
        /// The primary key: another row has the same key.
        case primaryKey = "PRIMARY KEY"
        /// A `NOT NULL` column got NULL.
        case notNull = "NOT NULL"
        /// A `CHECK` constraint was false.
        case check = "CHECK"
        /// A `FOREIGN KEY`: the referenced row does not exist, or a referenced row was changed or
        /// deleted.
        case foreignKey = "FOREIGN KEY"
        /// A `STRICT` table's column got a value of the wrong type.
        case datatype = "DATATYPE"
        /// A trigger's `RAISE(ABORT, …)`, `RAISE(FAIL, …)` or `RAISE(ROLLBACK, …)`.
        case trigger = "TRIGGER"
        /// Any other constraint SQLite reports.
        case other = "constraint"
    }

    /// Which kind of constraint failed.
    public var kind: Kind
    /// The table whose constraint failed: the one SQLite names, or else the table written.
    public var table: String
    /// The columns SQLite names (for UNIQUE, PRIMARY KEY, NOT NULL and DATATYPE); empty otherwise.
    public var columns: [String]
    /// For CHECK, the constraint's name or expression; for TRIGGER, the trigger's message.
    public var constraint: String?
    /// The database's message, such as SQLite's "UNIQUE constraint failed: items.title".
    public var message: String
    /// The SQL that failed.
    public var sql: String?
    /// The error the database reported, with its codes: a `SQLiteError` on SQLite, a
    /// `PostgreSQLError` on PostgreSQL. Any error, so that one type serves every database; cast
    /// it for the codes. Equality and hashing leave it out: the
    /// other properties are what the database said.
    public var underlying: any Error & Sendable

    /// A violation a driver builds from its error's fields.
    package init(
        kind: Kind, table: String, columns: [String], constraint: String?, message: String, sql: String?,
        underlying: any Error & Sendable
    ) {
        self.kind = kind
        self.table = table
        self.columns = columns
        self.constraint = constraint
        self.message = message
        self.sql = sql
        self.underlying = underlying
    }

    /// Splits `table.column` names; a name that starts with the written table's name and a dot
    /// belongs to that table even when the table's name holds dots itself.
    package mutating func setColumns(_ qualified: [String], knownTable: String) {
        var tables: [String] = []
        for name in qualified {
            if name.hasPrefix(knownTable + ".") {
                tables.append(knownTable)
                columns.append(String(name.dropFirst(knownTable.count + 1)))
            } else if let dot = name.firstIndex(of: ".") {
                tables.append(String(name[..<dot]))
                columns.append(String(name[name.index(after: dot)...]))
            } else {
                columns.append(name)
            }
        }
        if let first = tables.first { table = first }
    }
}

extension ConstraintViolation {
    /// Equal when the database reported the same failure: everything but ``underlying``.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.table == rhs.table && lhs.columns == rhs.columns
            && lhs.constraint == rhs.constraint && lhs.message == rhs.message && lhs.sql == rhs.sql
    }

    /// Hashes what equality compares: everything but ``underlying``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(table)
        hasher.combine(columns)
        hasher.combine(constraint)
        hasher.combine(message)
        hasher.combine(sql)
    }
}

extension ConstraintViolation: CustomStringConvertible {
    /// What failed, where, why, and the SQL:
    ///
    ///     NOT NULL constraint failed in "items" on "title": the value is NULL (a Double NaN is stored as NULL by SQLite)
    ///       SQL: INSERT INTO "items" ("id", "title") VALUES (?, ?)
    public var description: String {
        let names = columns.map(String.quotedIdentifier).joined(separator: ", ")
        var text = kind == .trigger ? "a trigger refused the change" : "\(kind.rawValue) constraint failed"
        text += " in \(String.quotedIdentifier(table))"
        if !columns.isEmpty { text += " on \(names)" }
        switch kind {
        case .unique:
            text += columns.count > 1 ? ": another row has the same values" : ": another row has the same value"
        case .primaryKey: text += ": another row has the same key"
        // The one NULL nobody wrote: SQLite turns a NaN it is given into NULL.
        case .notNull: text += ": the value is NULL (a Double NaN is stored as NULL by SQLite)"
        case .check: text += ": \(constraint ?? message)"
        case .foreignKey:
            text += ": a referenced row does not exist, or a row that others reference was changed or deleted"
        case .datatype: text += ": \(message)"
        case .trigger: text += ": \(constraint ?? message)"
        case .other: text += ": \(message)"
        }
        if let sql { text += "\n  SQL: \(sql)" }
        return text
    }
}
