/// Where a ``LiveQueryEngine`` reads its queries, and how it learns what changed.
///
/// The engine knows queries, what they read, and when to refetch them; a source knows the
/// database. It reports its own connection's commits to the engine's `didCommit(_:)`, and changes
/// it cannot describe (by other connections or processes, or the database going away) to
/// `didChangeElsewhere(failure:)`. How it hears of them is its own business: the engine only tells
/// it what is worth hearing (`select(_:previous:)`) and when anyone is listening
/// (`startWatching()`).
package protocol LiveQuerySource: AnyObject, Sendable {
    /// What a query's fetch runs on.
    associatedtype Connection
    /// A watch started by `startWatching()`, kept by the engine until it gives it back to
    /// `stopWatching(_:)`.
    associatedtype Watch: Sendable

    /// Called on the engine's queue whenever it starts rounds after being idle, before they read.
    ///
    /// The place for setup that may wait for the database: the engine's callers never wait for
    /// it, so they may create readers from inside one of the database's own transactions. Work
    /// that must come before the first read (so that no commit falls between what the read sees
    /// and what is reported afterwards) belongs here.
    func prepareRounds()

    /// Runs `body` on one connection, in one read of one snapshot: a round's fetches all see the
    /// same state of the database.
    ///
    /// Called on the engine's queue only, one read at a time, so each round reads a snapshot no
    /// older than the previous one's. A failure fails every query of the round with the error.
    func read<T>(_ body: (Connection) throws -> T) throws -> T

    /// Runs `fetch(connection, index)` for each of a round's `count` queries, and returns their
    /// results in order: what a round calls.
    ///
    /// By default one ``read(_:)``, the queries one after another. A source whose every statement
    /// costs a round trip to a server may run them on several connections at once, as long as
    /// each query reads a state no older than the previous round's. Called on the engine's queue
    /// only, one round at a time. A failure fails every query of the round with the error; a
    /// query's own failure is in its result.
    func readEach<T: Sendable>(_ count: Int, _ fetch: @Sendable (Connection, Int) -> T) throws -> [T]

    /// The tables the engine's queries read are now `tables`: changes to any other table concern
    /// no query, and need not reach the engine. Called only when the selection changed.
    ///
    /// Called with the engine's lock held, so that selections arrive in the order they were
    /// made: it must record the selection and return, never wait or call the engine.
    func select(_ tables: TableSelection)

    /// Starts watching for changes made elsewhere, when a first reader attaches; or returns `nil`
    /// when nothing can change elsewhere (a database in memory), and the engine never asks again.
    ///
    /// Changes made while nobody watched went unreported: the watch should check for them as it
    /// starts.
    func startWatching() -> Watch?

    /// Stops a watch: the last reader left, or two readers attaching at once both started one.
    func stopWatching(_ watch: Watch)

    /// How long to wait before fetching again a query whose fetch failed with `error`, the
    /// `attempt`th time in a row (from 0); nil when waiting would not help. A fetch that failed
    /// for a moment (a lock it waited for too long) leaves its value behind the database, and no
    /// later commit may come to fetch it again.
    func retryDelay(after error: any Error, attempt: Int) -> Duration?
}

extension LiveQuerySource {
    package func retryDelay(after error: any Error, attempt: Int) -> Duration? { nil }

    package func readEach<T: Sendable>(_ count: Int, _ fetch: @Sendable (Connection, Int) -> T) throws -> [T] {
        try read { connection in (0..<count).map { fetch(connection, $0) } }
    }
}
