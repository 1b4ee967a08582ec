import LiveQuery

extension SharedReaderCache {
    /// How many entries the cache of `database` holds now.
    public static func storeCount(for database: any DatabaseWriter) -> Int {
        SQLiteLiveEngine.existing(of: database)?.recordCount ?? 0
    }
}
