#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Tells a cache what time it is: when a value was last updated, whether it is stale, and when an
/// unused store has been idle long enough to evict, so that a test can control time completely.
///
/// ```swift
/// store.context.queryClock = .custom { Date(timeIntervalSince1970: 1234567890) }  // QueryCache
/// ```
public protocol QueryClock: Sendable {
    /// The current date according to this clock.
    func now() -> Date
}

extension QueryClock {
    /// A clock that always answers with the date this clock reports right now, useful to give many
    /// yielded chunks the same timestamp.
    public func frozen() -> CustomQueryClock {
        let date = now()
        return CustomQueryClock { date }
    }
}

/// The clock that reads the system time.
public struct SystemTimeQueryClock: QueryClock {
    /// The system clock.
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock whose time comes from a closure.
public struct CustomQueryClock: QueryClock {
    private let date: @Sendable () -> Date

    /// Creates a clock that calls `now` each time it is asked for the date.
    public init(_ now: @escaping @Sendable () -> Date) {
        self.date = now
    }

    public func now() -> Date { date() }
}

extension QueryClock where Self == SystemTimeQueryClock {
    /// The system clock.
    public static var systemTime: SystemTimeQueryClock { SystemTimeQueryClock() }
}

extension QueryClock where Self == CustomQueryClock {
    /// A clock whose time comes from `now`.
    ///
    /// ```swift
    /// let date = Date(timeIntervalSince1970: 1234567890)
    /// let clock: any QueryClock = .custom { date }
    /// ```
    public static func custom(_ now: @escaping @Sendable () -> Date) -> CustomQueryClock {
        CustomQueryClock(now)
    }
}
