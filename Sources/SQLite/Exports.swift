// `import SQLite` brings the values and rows every source shares, and the query builder.
@_exported import QueryBuilder
@_exported import SQLCore
