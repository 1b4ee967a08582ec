/// A bag of typed values that configures how a query runs, in the manner of SwiftUI's
/// `EnvironmentValues`.
///
/// Add your own properties with a ``Key``:
///
/// ```swift
/// extension QueryContext {
///   var customProperty: String {
///     get { self[CustomPropertyKey.self] }
///     set { self[CustomPropertyKey.self] = newValue }
///   }
///
///   private enum CustomPropertyKey: Key {
///     static let defaultValue = "hello!"
///   }
/// }
/// ```
public struct QueryContext: Sendable {
    /// A key for a value stored in a ``QueryContext``.
    ///
    /// `defaultValue` is evaluated every time a context without an explicit value is read; declare it
    /// as a `static let` to compute it once and share it.
    public protocol Key<Value> {
        associatedtype Value: Sendable
        static var defaultValue: Value { get }
    }

    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates a context in which every key has its default value.
    public init() {}

    /// The value for `key`, or its default value if none was set.
    public subscript<K: Key>(key: K.Type) -> K.Value {
        get {
            if let value = storage[ObjectIdentifier(key)] {
                // Only this subscript writes under `ObjectIdentifier(K.self)`, always a `K.Value`.
                return value as! K.Value
            }
            return K.defaultValue
        }
        set { storage[ObjectIdentifier(key)] = newValue }
    }
}

// MARK: - Query client

extension QueryContext {
    /// The client that owns the store running the query, or `nil` for a detached store.
    ///
    /// The context keeps only a weak reference, because the client itself holds the stores whose
    /// contexts point back at it.
    public var queryClient: QueryClient? {
        get { self[QueryClientKey.self].client }
        set { self[QueryClientKey.self] = WeakClient(client: newValue) }
    }

    private struct WeakClient: Sendable {
        weak var client: QueryClient?
    }

    private enum QueryClientKey: Key {
        static var defaultValue: WeakClient { WeakClient(client: nil) }
    }
}
