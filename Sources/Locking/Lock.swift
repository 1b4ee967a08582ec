#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that threads take turns with: `Synchronization.Mutex`'s shape, over a
/// `pthread_mutex_t`.
///
/// ```swift
/// private let state = Lock(State())
/// let count = state.withLock { state in
///     state.count += 1
///     return state.count
/// }
/// ```
///
/// The package locks with this rather than with `Mutex` so that Thread Sanitizer can check it:
/// the sanitizer intercepts the pthread calls and so sees each unlock happen before the next
/// lock, while `Mutex` releases its futex inside the Synchronization library, which is not
/// instrumented, and every value it guards looks raced on. An uncontended lock costs about what
/// `Mutex` costs: one atomic exchange each way, in the C library.
///
/// Unlike `Mutex`, a `Lock` is copyable: copies share one mutex and one value, which live in a
/// heap object so that the mutex keeps its address.
package struct Lock<Value>: @unchecked Sendable {
    // Sendable for any value, as Mutex is: the value is only reached inside `withLock`, under
    // the mutex, by one thread at a time, and it enters and leaves only as `sending`, so no
    // reference to it stays behind in another isolation domain.
    @usableFromInline let storage: LockStorage<Value>

    /// A lock around `initialValue`.
    @inlinable
    package init(_ initialValue: consuming sending Value) {
        storage = LockStorage.make(initialValue)
    }

    /// Runs `body` with the value, holding the lock; the lock is released when `body` returns or
    /// throws. Calling `withLock` again from `body`, on the same lock, deadlocks.
    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let (value, mutex) = storage.pointers
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}

/// The value and the mutex, in one allocation.
@usableFromInline
final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    @inlinable
    static func make(_ value: Value) -> LockStorage {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockStorage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            _ = pthread_mutex_init(mutex, nil)
        }
        return storage
    }

    /// The value and the mutex. The object never moves, so they stay valid as long as it lives,
    /// which a `Lock` using them guarantees by holding it.
    @inlinable
    var pointers: (value: UnsafeMutablePointer<Value>, mutex: UnsafeMutablePointer<pthread_mutex_t>) {
        withUnsafeMutablePointers { ($0, $1) }
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            _ = pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}
