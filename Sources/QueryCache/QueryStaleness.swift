#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension QueryContext {
    /// How long a fetched value stays fresh, in seconds. `nil`, the default, means values never go
    /// stale with time; they are stale only when there is none yet or after an invalidation.
    ///
    /// ```swift
    /// store.context.queryStaleDuration = 60
    /// ```
    public var queryStaleDuration: TimeInterval? {
        get { self[StaleDurationKey.self] }
        set { self[StaleDurationKey.self] = newValue }
    }

    private enum StaleDurationKey: Key {
        static let defaultValue: TimeInterval? = nil
    }
}
