/// `==` for values of type `Value` when it is `Equatable`, so that readers of any value type skip
/// notifications for refetches that found the same rows; `nil` for other types, whose values
/// always count as changed.
///
/// The conformance is looked up once, when a reader is made: a dynamic cast to `any Equatable`
/// on every comparison would cost more than comparing most values.
func equality<Value: Sendable>(of type: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
    guard let equatable = type as? any (Equatable & Sendable).Type else { return nil }
    return equality(of: equatable, as: type)
}

/// Opens the `Equatable` type, which is `Value` itself.
private func equality<E: Equatable & Sendable, Value: Sendable>(of equatable: E.Type, as type: Value.Type)
    -> @Sendable (Value, Value) -> Bool
{
    { lhs, rhs in (lhs as! E) == (rhs as! E) }
}
