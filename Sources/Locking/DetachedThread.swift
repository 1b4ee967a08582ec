#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own, for work that blocks in a system call (`poll`, `read`) and so must not
/// hold one of the few threads of Swift's cooperative pool.
///
/// Foundation's `Thread` does this too, but it is not in FoundationEssentials, and importing
/// the rest of Foundation links its Unicode data into every program that uses the package.
package enum DetachedThread {
    /// Why a thread could not be started: `pthread_create`'s error number (`EAGAIN` when the
    /// process or the system has too many threads).
    package struct StartError: Error, Sendable {
        package let code: Int32
    }

    /// Runs `body` on a new detached thread called `name`.
    ///
    /// The name is what debuggers show, on Apple platforms.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Glibc)
            var thread = pthread_t()
        #else
            var thread: pthread_t?
        #endif
        let code = pthread_create(
            &thread, &attributes,
            { context in
                // Optional on Linux, not on Apple platforms.
                let argument: UnsafeMutableRawPointer? = context
                let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
                start.nameCurrentThread()
                start.body()
                return nil
            }, context)
        guard code == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            throw StartError(code: code)
        }
    }

    /// What the new thread runs, handed to it through `pthread_create`'s context pointer.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func nameCurrentThread() {
            // Glibc's module leaves out pthread_setname_np (it needs _GNU_SOURCE); Foundation's
            // `Thread` did not name its threads on Linux either.
            #if canImport(Darwin)
                _ = pthread_setname_np(name)
            #endif
        }
    }
}
