import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C as an event instead of the end of the process: `SIGINT` is taken from its default
/// action and delivered by a dispatch source, so that the program can stop what it does, restore
/// the terminal and exit with status 0.
final class InterruptSignal {
    private let source: any DispatchSourceSignal

    /// Starts listening; `handler` runs on a global queue at each Ctrl-C, from the time this
    /// returns.
    init(handler: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        // Dispatch takes the signal over once the source is registered, on a queue of its own;
        // until then SIGINT is ignored, and a Ctrl-C would be lost.
        let registered = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { registered.signal() }
        source.resume()
        _ = registered.wait(timeout: .now() + .seconds(1))
    }

    /// Stops listening and gives `SIGINT` its default action back.
    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
