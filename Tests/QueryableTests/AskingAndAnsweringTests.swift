import Queryable
import Testing

struct PresenterFailure: Error, Equatable {
    let code: Int
}

/// Starts a query in a child task and returns the pending query the presenter receives.
private func receive<Input, Answer>(
    from queryable: Queryable<Input, Answer>
) async throws -> PendingQuery<Input, Answer> {
    var iterator = queryable.pendingQueries.makeAsyncIterator()
    return try #require(await iterator.next())
}

@Suite(.timeLimit(.minutes(1)))
struct AskingAndAnsweringTests {
    @Test func answerIsReturnedToTheAsker() async throws {
        let queryable = Queryable<String, Int>()
        async let answer = queryable.query(with: "How many?")
        let pending = try await receive(from: queryable)
        #expect(pending.input == "How many?")
        #expect(pending.answer(with: 42))
        #expect(try await answer == 42)
        #expect(pending.hasEnded)
    }

    @Test func voidQueryNeedsNoInput() async throws {
        let queryable = Queryable<Void, Bool>()
        async let answer = queryable.query()
        try await receive(from: queryable).answer(with: true)
        #expect(try await answer == true)
    }

    @Test func triggerAsksThroughItsQueryable() async throws {
        let queryable = Queryable<Void, Bool>()
        let trigger: Queryable<Void, Bool>.Trigger = queryable.trigger
        async let answer = trigger.query()
        let pending = try await receive(from: queryable)
        #expect(trigger.isQuerying)
        pending.answer(with: false)
        #expect(try await answer == false)
        #expect(!trigger.isQuerying)
    }

    @Test func triggerPassesInput() async throws {
        let queryable = Queryable<Int, Int>()
        async let answer = queryable.trigger.query(with: 20)
        let pending = try await receive(from: queryable)
        pending.answer(with: pending.input + 1)
        #expect(try await answer == 21)
    }

    @Test func presenterErrorIsThrownToTheAsker() async throws {
        let queryable = Queryable<Void, Int>()
        let asker = Task { try await queryable.query() }
        #expect(try await receive(from: queryable).answer(throwing: PresenterFailure(code: 7)))
        await #expect(throws: PresenterFailure(code: 7)) { try await asker.value }
    }

    @Test func secondAnswerIsIgnored() async throws {
        let queryable = Queryable<Void, Int>()
        async let answer = queryable.query()
        let pending = try await receive(from: queryable)
        #expect(pending.answer(with: 1))
        #expect(!pending.answer(with: 2))
        #expect(!pending.answer(throwing: PresenterFailure(code: 1)))
        #expect(!pending.cancel())
        #expect(try await answer == 1)
    }

    @Test func queryAskedBeforeThePresenterListensIsStillDelivered() async throws {
        let queryable = Queryable<String, String>()
        async let answer = queryable.query(with: "early")
        await waitUntil(queryable, isQuerying: true)
        // Only now does a presenter start listening.
        let pending = try await receive(from: queryable)
        #expect(pending.input == "early")
        pending.answer(with: "late presenter")
        #expect(try await answer == "late presenter")
    }

    @Test func eachQueryGoesToExactlyOnePresenter() async throws {
        let queryable = Queryable<Int, Int>()
        let presenters = (1...2).map { presenterID in
            Task {
                var received = 0
                for await pending in queryable.pendingQueries {
                    received += 1
                    pending.answer(with: presenterID)
                }
                return received
            }
        }
        for number in 1...20 {
            let answeredBy = try await queryable.query(with: number)
            #expect([1, 2].contains(answeredBy))
        }
        for presenter in presenters { presenter.cancel() }
        var received = 0
        for presenter in presenters { received += await presenter.value }
        #expect(received == 20)
    }

    @Test func pendingQueriesEndWhenThePresenterTaskIsCancelled() async {
        let queryable = Queryable<Int, Int>()
        let presenter = Task {
            var received = 0
            for await _ in queryable.pendingQueries { received += 1 }
            return received
        }
        presenter.cancel()
        #expect(await presenter.value == 0)
    }
}
