import Queryable
import Testing

private func reason(of body: () async throws -> some Any) async -> QueryCancellationError.Reason? {
    do {
        _ = try await body()
        return nil
    } catch let error as QueryCancellationError {
        return error.reason
    } catch {
        return nil
    }
}

@Suite(.timeLimit(.minutes(1)))
struct CancellationTests {
    @Test func cancelEndsTheWaitingQuery() async throws {
        let queryable = Queryable<Void, Bool>()
        async let outcome = reason { try await queryable.query() }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        let pending = try #require(await presenter.next())
        queryable.cancel()
        #expect(await outcome == .cancelRequested)
        #expect(pending.hasEnded)
        #expect(!pending.answer(with: true))
        #expect(!queryable.isQuerying)
    }

    @Test func cancelWithoutAWaitingQueryDoesNothing() async throws {
        let queryable = Queryable<Void, Bool>()
        queryable.cancel()
        async let answer = queryable.query()
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        try #require(await presenter.next()).answer(with: true)
        #expect(try await answer)
    }

    @Test func cancellingTheAskingTaskCancelsTheQuery() async throws {
        let queryable = Queryable<Void, Bool>()
        let asker = Task { await reason { try await queryable.query() } }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        let pending = try #require(await presenter.next())
        asker.cancel()
        #expect(await asker.value == .taskCancelled)
        await pending.waitUntilEnded()
        #expect(!pending.answer(with: true))
    }

    @Test func alreadyCancelledTaskNeverShowsTheQuery() async {
        let queryable = Queryable<Void, Bool>()
        let asker = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await reason { try await queryable.query() }
        }
        #expect(await asker.value == .taskCancelled)
        #expect(!queryable.isQuerying)
    }

    @Test func newQueryReplacesTheWaitingOneByDefault() async throws {
        let queryable = Queryable<Int, Int>()
        #expect(queryable.queryConflictPolicy == .cancelPreviousQuery)
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        async let first = reason { try await queryable.query(with: 1) }
        let firstPending = try #require(await presenter.next())
        async let second = queryable.query(with: 2)
        let secondPending = try #require(await presenter.next())
        #expect(await first == .replacedByNewQuery)
        #expect(!firstPending.answer(with: 1))
        #expect(secondPending.input == 2)
        secondPending.answer(with: 2)
        #expect(try await second == 2)
    }

    @Test func cancelNewQueryPolicyRejectsTheNewcomer() async throws {
        let queryable = Queryable<Int, Int>(queryConflictPolicy: .cancelNewQuery)
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        async let first = queryable.query(with: 1)
        let firstPending = try #require(await presenter.next())
        let secondOutcome = await reason { try await queryable.query(with: 2) }
        #expect(secondOutcome == .rejectedByOngoingQuery)
        #expect(queryable.isQuerying)
        firstPending.answer(with: 100)
        #expect(try await first == 100)
    }

    @Test func timeoutCancelsAnUnansweredQuery() async {
        let queryable = Queryable<Void, Bool>()
        let outcome = await reason { try await queryable.query(timeout: .milliseconds(20)) }
        #expect(outcome == .timedOut(after: .milliseconds(20)))
        #expect(!queryable.isQuerying)
    }

    @Test func answerBeforeTheTimeoutWins() async throws {
        let queryable = Queryable<Void, Bool>()
        async let answer = queryable.query(timeout: .seconds(600))
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        try #require(await presenter.next()).answer(with: true)
        // Finishing promptly also proves the timer does not hold the asker back.
        #expect(try await answer)
    }

    @Test func droppingAPendingQueryCancelsIt() async throws {
        let queryable = Queryable<Void, Bool>()
        async let outcome = reason { try await queryable.query() }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        var pending = await presenter.next()
        #expect(pending != nil)
        pending = nil
        #expect(await outcome == .droppedByPresenter)
    }

    @Test func presenterCanCancelWithAReason() async throws {
        let queryable = Queryable<Void, Bool>()
        async let outcome = reason { try await queryable.query() }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        #expect(try #require(await presenter.next()).cancel(reason: .endOfInput))
        #expect(await outcome == .endOfInput)
    }

    @Test func waitUntilEndedReturnsWhenTheAskerGivesUp() async throws {
        let queryable = Queryable<Void, Bool>()
        let asker = Task { try await queryable.query() }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        let pending = try #require(await presenter.next())
        #expect(!pending.hasEnded)
        queryable.cancel()
        await pending.waitUntilEnded()
        #expect(pending.hasEnded)
        _ = await asker.result
    }

    @Test func cancellationErrorExplainsItself() {
        let error = QueryCancellationError(reason: .rejectedByOngoingQuery)
        #expect(error.description.contains(".cancelNewQuery"))
        #expect(QueryCancellationError(reason: .timedOut(after: .seconds(3))).description.contains("3"))
    }
}
