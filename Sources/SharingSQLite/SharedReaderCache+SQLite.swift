import LiveQuery

extension SharedReaderCache {
    /// How many entries the cache of `database` holds now.
    public static func storeCount(for database: any DatabaseWriter) -> Int {
        ObservationCenter.existingCenter(for: database)?.recordCount ?? 0
    }
}

extension SharedReader {
    /// The center and key the reader is attached to; for tests.
    var attachment: (center: ObservationCenter, key: SharedReaderKey<Value>)? {
        attachedLease.flatMap { attached in
            (attached.lease as? ObservationCenter.Lease).map { ($0.engine, attached.key) }
        }
    }
}
