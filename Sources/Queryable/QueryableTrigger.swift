extension Queryable {
    /// The asking half of a ``Queryable``: it can start queries but never sees or answers them.
    ///
    /// Hand it to code that only needs an answer and should not care how it is obtained.
    ///
    /// ```swift
    /// func cleanUp(confirm: Queryable<Void, Bool>.Trigger) async throws {
    ///     if try await confirm.query() { /* ... */ }
    /// }
    /// ```
    public struct Trigger: Sendable {
        private let queryable: Queryable

        init(queryable: Queryable) {
            self.queryable = queryable
        }

        /// Whether the underlying queryable has a query waiting. Observable.
        public var isQuerying: Bool { queryable.isQuerying }

        /// Same as ``Queryable/query(with:timeout:)``.
        public func query(with input: Input, timeout: Duration? = nil) async throws -> Answer {
            try await queryable.query(with: input, timeout: timeout)
        }
    }
}

extension Queryable.Trigger where Input == Void {
    /// Same as ``Queryable/query(timeout:)``.
    public func query(timeout: Duration? = nil) async throws -> Answer {
        try await query(with: (), timeout: timeout)
    }
}
