extension Duration {
    /// The longest wait a configured timeout becomes: 68 years, which is never in practice.
    /// Swift's `Task.sleep` and NIO's `TimeAmount` count nanoseconds in 64 bits and trap past
    /// them, so a timeout of `.seconds(.max)` would end the process rather than wait forever.
    static let longestTimer = Duration.seconds(Int64(Int32.max))

    /// This duration within what a timer can wait: from zero (a negative timeout fires at once)
    /// to ``longestTimer``.
    var boundedForTimers: Duration { Swift.max(.zero, Swift.min(self, Self.longestTimer)) }

    /// ``boundedForTimers`` in whole nanoseconds, which never overflows.
    var timerNanoseconds: Int64 {
        let (seconds, attoseconds) = boundedForTimers.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
