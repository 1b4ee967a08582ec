/// A hierarchical identifier for a query: the key of its store in a cache (`QueryCache`'s
/// `QueryClient`, which also matches groups of stores by prefix, and the live-query engine).
///
/// ```swift
/// let path: QueryPath = ["nearby-events", region]
/// path.isPrefix(of: ["nearby-events", region, 2])  // true
/// ```
public struct QueryPath: Hashable, Sendable {
    /// One component of a path.
    public struct Element: Hashable, Sendable, CustomStringConvertible {
        // Holds the value as `AnyHashable`, which is not `Sendable`, so `Box` declares what the
        // initializer guarantees: every wrapped value was `Hashable & Sendable` when it came in.
        private struct Box: Hashable, @unchecked Sendable {
            let value: AnyHashable
        }

        private let box: Box

        /// Wraps a hashable, sendable value.
        public init(_ value: any Hashable & Sendable) {
            if let element = value as? Element {
                self = element
            } else {
                self.box = Box(value: AnyHashable(value))
            }
        }

        /// Wraps a hashable, sendable value of a type known here, which spares the dynamic casts
        /// of wrapping an existential.
        public init<Value: Hashable & Sendable>(_ value: Value) {
            if Value.self == Element.self {
                self = value as! Element
            } else {
                self.box = Box(value: AnyHashable(value))
            }
        }

        /// The wrapped value.
        public var base: any Hashable { box.value.base as! any Hashable }

        public var description: String { String(describing: box.value.base) }
    }

    /// The components of the path, outermost first.
    public var elements: [Element] {
        didSet { hash = Self.hash(of: elements) }
    }

    /// The elements' hash, computed once: a path is hashed on every lookup of its store, and
    /// hashing its elements goes through `AnyHashable`.
    private var hash: Int

    /// Creates a path from its components.
    public init(_ elements: [any Hashable & Sendable]) {
        self.init(elements: elements.map(Element.init))
    }

    /// Creates a path from already-wrapped components.
    public init(elements: [Element]) {
        self.elements = elements
        self.hash = Self.hash(of: elements)
    }

    private static func hash(of elements: [Element]) -> Int {
        var hasher = Hasher()
        hasher.combine(elements)
        return hasher.finalize()
    }

    public static func == (lhs: QueryPath, rhs: QueryPath) -> Bool {
        lhs.hash == rhs.hash && lhs.elements == rhs.elements
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// Whether this path is equal to, or a leading part of, `other`. The empty path is a prefix of
    /// every path.
    public func isPrefix(of other: QueryPath) -> Bool {
        elements.count <= other.elements.count
            && zip(elements, other.elements).allSatisfy { $0 == $1 }
    }

    /// Appends components, returning a longer path.
    public func appending(_ elements: any Hashable & Sendable...) -> QueryPath {
        QueryPath(elements: self.elements + elements.map(Element.init))
    }
}

extension QueryPath: ExpressibleByArrayLiteral {
    /// A path of the listed elements: `["players", id]`.
    public init(arrayLiteral elements: any Hashable & Sendable...) {
        self.init(elements)
    }
}

extension QueryPath: RandomAccessCollection {
    /// The position of the first element.
    public var startIndex: Int { elements.startIndex }
    /// The position after the last element.
    public var endIndex: Int { elements.endIndex }
    /// The element at `position`.
    public subscript(position: Int) -> Element { elements[position] }
}

extension QueryPath: CustomStringConvertible {
    public var description: String {
        "[" + elements.map(\.description).joined(separator: ", ") + "]"
    }
}
