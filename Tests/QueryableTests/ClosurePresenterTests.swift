import Queryable
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ClosurePresenterTests {
    @Test func closureAnswersEveryQuery() async throws {
        let queryable = Queryable<Int, Int>()
        let presenter = Task { await queryable.answerQueries { $0 * 2 } }
        defer { presenter.cancel() }
        #expect(try await queryable.query(with: 1) == 2)
        #expect(try await queryable.query(with: 21) == 42)
    }

    @Test func closureErrorReachesTheAsker() async throws {
        let queryable = Queryable<Int, Int>()
        let presenter = Task {
            await queryable.answerQueries { code in throw PresenterFailure(code: code) }
        }
        defer { presenter.cancel() }
        await #expect(throws: PresenterFailure(code: 5)) { try await queryable.query(with: 5) }
    }

    @Test func closureThrowingQueryCancellationErrorCancelsWithItsReason() async throws {
        let queryable = Queryable<Void, Int>()
        let presenter = Task {
            await queryable.answerQueries { throw QueryCancellationError(reason: .endOfInput) }
        }
        defer { presenter.cancel() }
        await #expect(throws: QueryCancellationError(reason: .endOfInput)) { try await queryable.query() }
    }

    @Test func closureIsCancelledWhenItsQueryEnds() async throws {
        let queryable = Queryable<Int, Int>()
        let bodyStarted = TestSignal()
        let bodyCancelled = TestSignal()
        let presenter = Task {
            await queryable.answerQueries { input in
                guard input == 1 else { return input }
                bodyStarted.signal()
                // Suspends until the presenter cancels this body.
                let (never, continuation) = AsyncStream<Void>.makeStream()
                for await _ in never {}
                continuation.finish()
                bodyCancelled.signal()
                throw CancellationError()
            }
        }
        defer { presenter.cancel() }

        let asker = Task { try await queryable.query(with: 1) }
        await bodyStarted.wait()
        queryable.cancel()
        await #expect(throws: QueryCancellationError(reason: .cancelRequested)) { try await asker.value }
        await bodyCancelled.wait()
        // The presenter moved on and serves the next query.
        #expect(try await queryable.query(with: 2) == 2)
    }
}
