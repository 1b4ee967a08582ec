import Testing

@testable import LiveQuery

@Suite struct LiveQueryEngineRegistryTests {
    /// Stands for a database: the registry knows databases only by identity.
    final class Database: Sendable {}

    @Test func oneEnginePerDatabaseWhileItIsHeld() {
        let first = Database()
        let second = Database()
        var made = 0
        func engine(of database: Database) -> LiveQueryEngine<CountsSource> {
            LiveQueryEngine.of(database) { _ in
                made += 1
                return LiveQueryEngine(source: CountsSource())
            }
        }
        #expect(LiveQueryEngine<CountsSource>.existing(of: first) == nil)
        var held: LiveQueryEngine<CountsSource>? = engine(of: first)
        #expect(engine(of: first) === held)
        #expect(LiveQueryEngine<CountsSource>.existing(of: first) === held)
        #expect(engine(of: second) !== held)
        #expect(made == 2, "the second lookup of the first database made another engine")

        // The registry does not keep an engine alive: the next lookup makes a new one.
        held = nil
        #expect(LiveQueryEngine<CountsSource>.existing(of: first) == nil)
        _ = engine(of: first)
        #expect(made == 3)
    }

    @Test func enginesOfOtherSourcesOnOneDatabaseAreDistinct() {
        let database = Database()
        let counts = LiveQueryEngine.of(database) { _ in LiveQueryEngine(source: CountsSource()) }
        let other = LiveQueryEngine.of(database) { _ in LiveQueryEngine(source: OtherSource()) }
        #expect(LiveQueryEngine<CountsSource>.existing(of: database) === counts)
        #expect(LiveQueryEngine<OtherSource>.existing(of: database) === other)
    }
}

/// A second kind of source, to check that the registry keeps engines of each kind apart.
final class OtherSource: LiveQuerySource {
    func prepareRounds() {}
    func read<T>(_ body: (Void) throws -> T) throws -> T { try body(()) }
    func select(_ tables: TableSelection) {}
    func startWatching() -> Int? { nil }
    func stopWatching(_ watch: Int) {}
}
