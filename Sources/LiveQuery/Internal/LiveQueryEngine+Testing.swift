import QueryEviction

// What tests read and set of an engine, kept out of the engine itself.

extension LiveQueryEngine {
    /// How many rounds fetched the query at `path`.
    func fetchCount(for path: QueryPath) -> Int {
        state.withLock { state in state.idsByPath[path].flatMap { state.entries[$0]?.record.fetchCount } ?? 0 }
    }

    /// The clock that eviction reads.
    var queryClock: any QueryClock {
        get { state.withLock { $0.clock } }
        set { state.withLock { $0.clock = newValue } }
    }

    /// Evicts, now, the queries that the policy lets go.
    func evictExpired() {
        state.withLock { state in
            state.evict(now: state.clock.now(), scan: true)
            select(&state)
        }
    }

    /// How many queries the index lists.
    var indexedQueryCount: Int { state.withLock { $0.index.count } }
}
