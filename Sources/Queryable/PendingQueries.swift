extension Queryable {
    /// The queries waiting for an answer, delivered one at a time to whoever iterates.
    ///
    /// ```swift
    /// for await query in queryable.pendingQueries {
    ///     query.answer(with: compute(query.input))
    /// }
    /// ```
    ///
    /// The sequence ends when the iterating task is cancelled. A received query that is
    /// released without an answer is cancelled, so a presenter cannot strand an asker.
    public struct PendingQueries: AsyncSequence, Sendable {
        public typealias Element = PendingQuery<Input, Answer>
        public typealias Failure = Never

        private let queryable: Queryable

        init(queryable: Queryable) {
            self.queryable = queryable
        }

        /// Starts receiving queries.
        public func makeAsyncIterator() -> Iterator {
            Iterator(queryable: queryable)
        }

        /// Receives the queries one at a time.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public typealias Element = PendingQuery<Input, Answer>
            public typealias Failure = Never

            private let queryable: Queryable

            init(queryable: Queryable) {
                self.queryable = queryable
            }

            /// Waits for the next query; `nil` once the calling task is cancelled.
            public mutating func next() async -> Element? {
                await queryable.nextPendingQuery()
            }

            /// Waits for the next query; `nil` once the calling task is cancelled.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                await queryable.nextPendingQuery()
            }
        }
    }
}
