#if HTTP
    import LiveHTTP

    /// What `/-/stats.json` reports: the live streams and the readers behind them, so that one can
    /// see that clients of the same view share one query, and count how often each query runs
    /// (once per commit that may change it); and the connections other requests read through.
    struct ServerStats: Encodable, Sendable {
        /// One query kept live for its clients.
        struct Reader: Encodable, Sendable {
            /// The streams it serves.
            var clients: Int
            /// How many times it was fetched: its first load, then once per refetch round.
            var fetches: Int
        }

        /// The streams open.
        var clients: Int
        /// The readers open, the most shared first.
        var readers: [Reader]
        /// The connections that requests other than streams read through.
        var readConnections: Int
        /// How many of them a request is reading through now.
        var readsRunning: Int
        /// How many requests are waiting for one of them to come free.
        var readsWaiting: Int

        init(streams: LiveEventStreams, reads: ReadConnections) {
            readConnections = reads.count
            readsRunning = reads.inUse
            readsWaiting = reads.waiting
            clients = streams.clientCount
            readers = streams.readerStatistics.map { Reader(clients: $0.clients, fetches: $0.fetches) }
                .sorted { ($0.clients, $0.fetches) > ($1.clients, $1.fetches) }
        }
    }
#endif
