// `import SQLite` brings the values and rows every source shares, the query builder, and the
// records and migrations every database shares.
@_exported import QueryBuilder
@_exported import SQLCore
@_exported import SQLRecords
