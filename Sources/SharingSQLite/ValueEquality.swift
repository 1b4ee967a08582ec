/// Compares two values with `==` when their type is `Equatable`, so that readers of any value
/// type skip notifications for refetches that found the same rows. Values of other types always
/// count as changed.
func valuesAreEqual<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
    guard let lhs = lhs as? any Equatable else { return false }
    return lhs.isEqual(to: rhs)
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
