// A query cache names its stores by `QueryPath` and ages them with a `QueryClock` under a
// `QueryEvictionPolicy`; those types are shared with the live-query engine, which needs them
// without the rest of the cache.
@_exported import QueryEviction
