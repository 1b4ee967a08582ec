import Observation
import Queryable
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ObservationTests {
    @Test func isQueryingChangesAreObservable() async throws {
        let queryable = Queryable<Void, Bool>()
        let started = TestSignal()
        let initial = withObservationTracking {
            queryable.isQuerying
        } onChange: {
            started.signal()
        }
        #expect(initial == false)

        async let answer = queryable.query()
        await started.wait()
        #expect(queryable.isQuerying)

        let ended = TestSignal()
        _ = withObservationTracking {
            queryable.isQuerying
        } onChange: {
            ended.signal()
        }
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        try #require(await presenter.next()).answer(with: true)
        await ended.wait()
        #expect(try await answer)
        #expect(!queryable.isQuerying)
    }

    @Test func replacingAQueryKeepsIsQueryingTrue() async throws {
        let queryable = Queryable<Int, Int>()
        var presenter = queryable.pendingQueries.makeAsyncIterator()
        let first = Task { try await queryable.query(with: 1) }
        _ = try #require(await presenter.next())
        async let second = queryable.query(with: 2)
        let secondPending = try #require(await presenter.next())
        _ = await first.result
        #expect(queryable.isQuerying)
        secondPending.answer(with: 2)
        #expect(try await second == 2)
        #expect(!queryable.isQuerying)
    }
}
