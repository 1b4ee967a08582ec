// Code that reads live values needs the connection types, keys' row types and `FetchKeyRequest`
// too; re-exporting spares every file a second import.
@_exported import LiveQuery
@_exported import SQLite
