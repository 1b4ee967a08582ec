// `import LiveQuery` brings the values, rows and change sets every source shares, and
// `FetchKeyRequest`, which keys are made of.
@_exported import QueryBuilder
@_exported import SQLCore
