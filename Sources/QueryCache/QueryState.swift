#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state a ``QueryStore`` keeps for a query.
public protocol QueryStateProtocol<StateValue, QueryValue>: Sendable {
    /// The type of ``currentValue``: usually `QueryValue?`, or `QueryValue` when there is a default.
    associatedtype StateValue: Sendable
    /// The type a fetch returns.
    associatedtype QueryValue: Sendable

    /// The latest value, or the initial value if none arrived yet.
    var currentValue: StateValue { get }
    /// The value the state started with.
    var initialValue: StateValue { get }
    /// How many values arrived, yielded ones included.
    var valueUpdateCount: Int { get }
    /// When the latest value arrived, by the query clock.
    var valueLastUpdatedAt: Date? { get }
    /// Whether a fetch is running. Stays `true` across yields until `fetch` returns.
    var isLoading: Bool { get }
    /// The latest error, cleared when a value arrives.
    var error: (any Error)? { get }
    /// How many errors arrived, yielded ones included.
    var errorUpdateCount: Int { get }
    /// When the latest error arrived, by the query clock.
    var errorLastUpdatedAt: Date? { get }

    /// Records a value that arrived at `date`.
    mutating func applyValue(_ value: QueryValue, at date: Date)
    /// Records an error that arrived at `date`.
    mutating func applyError(_ error: any Error, at date: Date)
    /// Records whether a fetch is running.
    mutating func setLoading(_ isLoading: Bool)
    /// Returns to the initial state.
    mutating func reset()
}

/// The default query state.
///
/// `QueryState<Value?, Value>` starts from an optional initial value;
/// `QueryState<Value, Value>` always has a value.
public struct QueryState<StateValue: Sendable, QueryValue: Sendable>: QueryStateProtocol {
    public private(set) var currentValue: StateValue
    public let initialValue: StateValue
    public private(set) var valueUpdateCount = 0
    public private(set) var valueLastUpdatedAt: Date?
    public private(set) var isLoading = false
    public private(set) var error: (any Error)?
    public private(set) var errorUpdateCount = 0
    public private(set) var errorLastUpdatedAt: Date?

    // A closure rather than a dynamic cast, so the only ways to build a state are the constrained
    // initializers below, each of which knows how a fetched value becomes a state value.
    private let wrap: @Sendable (QueryValue) -> StateValue

    public mutating func applyValue(_ value: QueryValue, at date: Date) {
        currentValue = wrap(value)
        valueUpdateCount += 1
        valueLastUpdatedAt = date
        error = nil
    }

    public mutating func applyError(_ error: any Error, at date: Date) {
        self.error = error
        errorUpdateCount += 1
        errorLastUpdatedAt = date
    }

    public mutating func setLoading(_ isLoading: Bool) {
        self.isLoading = isLoading
    }

    public mutating func reset() {
        self = QueryState(initialValue: initialValue, wrap: wrap)
    }

    private init(initialValue: StateValue, wrap: @escaping @Sendable (QueryValue) -> StateValue) {
        self.currentValue = initialValue
        self.initialValue = initialValue
        self.wrap = wrap
    }
}

extension QueryState {
    /// A state whose value is `nil` until the first fetch.
    public init(initialValue: QueryValue? = nil) where StateValue == QueryValue? {
        self.init(initialValue: initialValue, wrap: { $0 })
    }

    /// A state that always has a value, starting with `initialValue`.
    public init(initialValue: QueryValue) where StateValue == QueryValue {
        self.init(initialValue: initialValue, wrap: { $0 })
    }
}
