// A service on PostgreSQL writes `import PostgreSQL` alone: the values, rows, requests, records,
// migrations and live values it uses are these modules', which no other product of a
// PostgreSQL-only app brings.
@_exported import LiveQuery
@_exported import QueryBuilder
@_exported import SQLCore
@_exported import SQLRecords
