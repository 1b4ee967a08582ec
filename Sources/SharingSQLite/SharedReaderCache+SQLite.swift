import LiveQuery

extension SharedReaderCache {
    /// How many entries the cache of `database` holds now.
    public static func storeCount(for database: any DatabaseWriter) -> Int {
        ObservationCenter.existingCenter(for: database)?.recordCount ?? 0
    }
}
