import Locking

/// Every database's live-query engine, whatever its source: one engine per database, found by the
/// database's identity, made on first use, and gone with its last reader (the registry holds it
/// weakly), so that the next reader of the database makes a new one.
///
/// Keyed by the database and the engine's source type together, so that an entry found is an
/// engine of the type asked for, and the lookup on every reader's attach needs no dynamic cast.
private let registry = Lock<[RegistryKey: RegistryEntry]>([:])

private struct RegistryKey: Hashable {
    let database: ObjectIdentifier
    let source: ObjectIdentifier
}

private struct RegistryEntry {
    /// Compared with the database looked up: an identifier may be reused once its object is gone.
    weak var database: AnyObject?
    weak var engine: AnyObject?
}

extension LiveQueryEngine {
    /// The engine of `database`, made by `make` when it has none; `make` runs with the registry's
    /// lock held, so it must not look engines up itself.
    package static func of<Database: AnyObject & Sendable>(
        _ database: Database, make: (Database) -> LiveQueryEngine
    ) -> LiveQueryEngine {
        let key = RegistryKey(database: ObjectIdentifier(database), source: ObjectIdentifier(Source.self))
        return registry.withLock { entries in
            if let entry = entries[key], entry.database === database, let engine = entry.engine {
                // Only engines of `Source` are stored under `key`.
                return unsafeDowncast(engine, to: LiveQueryEngine.self)
            }
            // Forget the databases that are gone, whose identifiers may be reused; engines are
            // made rarely, so this scan is not on any reader's path.
            entries = entries.filter { $0.value.database != nil }
            let engine = make(database)
            entries[key] = RegistryEntry(database: database, engine: engine)
            return engine
        }
    }

    /// The engine of `database` if it has one now.
    package static func existing(of database: some AnyObject & Sendable) -> LiveQueryEngine? {
        let key = RegistryKey(database: ObjectIdentifier(database), source: ObjectIdentifier(Source.self))
        return registry.withLock { entries in
            guard let entry = entries[key], entry.database === database, let engine = entry.engine else { return nil }
            return unsafeDowncast(engine, to: LiveQueryEngine.self)
        }
    }
}
