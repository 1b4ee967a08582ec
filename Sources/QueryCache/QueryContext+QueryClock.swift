extension QueryContext {
    /// The clock used to timestamp state updates, decide staleness and drive eviction.
    /// Defaults to `QueryClock.systemTime`.
    public var queryClock: any QueryClock {
        get { self[QueryClockKey.self] }
        set { self[QueryClockKey.self] = newValue }
    }

    private enum QueryClockKey: Key {
        static var defaultValue: any QueryClock { SystemTimeQueryClock() }
    }
}
