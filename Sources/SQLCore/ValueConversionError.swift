/// A Swift value that has no stored form: a `Date` outside the years 0000 through 9999 or not
/// finite, or a value of your own type that your ``DatabaseValueConvertible/databaseValue``
/// conformance refuses.
///
/// Thrown where the value would be bound: by inserts and updates, record writes, and a
/// query-builder request that compares with it (when it runs), on SQLite and PostgreSQL alike.
public struct ValueConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value, as Swift source would write it: `Date(timeIntervalSince1970: inf)`.
    public let value: String
    /// Why it cannot be stored, with the range that can.
    public let reason: String

    public init(value: String, reason: String) {
        self.value = value
        self.reason = reason
    }

    public var description: String { "\(value) cannot be stored: \(reason)" }
}

extension ValueConversionError {
    /// `error`, thrown by `value`'s conversion, as a conversion error naming the value.
    @usableFromInline
    package init(_ error: any Error, of value: some DatabaseValueConvertible) {
        if let error = error as? ValueConversionError {
            self = error
        } else {
            self.init(value: "\(type(of: value)) \(value)", reason: "\(error)")
        }
    }
}
