import Locking
import Queryable
import Testing

/// What the presenters did, recorded so it can be matched against what the askers saw.
private final class PresenterLedger: Sendable {
    private struct Entries {
        var deliveredAnswers: Set<Int> = []
        var deliveredErrors: Set<Int> = []
        var acceptedSecondAnswers = 0
    }

    private let entries = Lock(Entries())

    func recordAnswer(_ input: Int, delivered: Bool) {
        if delivered { entries.withLock { _ = $0.deliveredAnswers.insert(input) } }
    }

    func recordError(_ input: Int, delivered: Bool) {
        if delivered { entries.withLock { _ = $0.deliveredErrors.insert(input) } }
    }

    func recordSecondAnswer(delivered: Bool) {
        if delivered { entries.withLock { $0.acceptedSecondAnswers += 1 } }
    }

    var deliveredAnswers: Set<Int> { entries.withLock { $0.deliveredAnswers } }
    var deliveredErrors: Set<Int> { entries.withLock { $0.deliveredErrors } }
    var acceptedSecondAnswers: Int { entries.withLock { $0.acceptedSecondAnswers } }
}

private enum AskerOutcome: Sendable {
    case answered(input: Int, value: Int)
    case presenterError(input: Int, code: Int)
    case cancelled(QueryCancellationError.Reason)
    case unexpected(String)
}

@Suite(.timeLimit(.minutes(2)))
struct StressTests {
    @Test func racingAsksAnswersCancelsAndDropsEachEndExactlyOnce() async {
        let queryableCount = 40
        let rounds = 100
        let queryables = (0..<queryableCount).map { index in
            Queryable<Int, Int>(queryConflictPolicy: index.isMultiple(of: 2) ? .cancelPreviousQuery : .cancelNewQuery)
        }
        let ledger = PresenterLedger()

        let outcomes = await withTaskGroup(of: Void.self) { presenters -> [AskerOutcome] in
            for queryable in queryables {
                presenters.addTask { await Self.present(queryable, ledger: ledger) }
            }
            // Each queryable gets rounds of one to three concurrent askers, so queries reach
            // the presenters and race there, instead of all being replaced at once.
            let outcomes = await withTaskGroup(of: [AskerOutcome].self) { drivers in
                for (index, queryable) in queryables.enumerated() {
                    drivers.addTask {
                        var outcomes: [AskerOutcome] = []
                        for round in 0..<rounds {
                            let firstInput = (index * rounds + round) * 3
                            let askers = Int.random(in: 1...3)
                            await withTaskGroup(of: AskerOutcome.self) { group in
                                for input in firstInput..<(firstInput + askers) {
                                    group.addTask { await Self.ask(queryable, input: input) }
                                }
                                for await outcome in group { outcomes.append(outcome) }
                            }
                        }
                        return outcomes
                    }
                }
                var outcomes: [AskerOutcome] = []
                for await driverOutcomes in drivers { outcomes += driverOutcomes }
                return outcomes
            }
            presenters.cancelAll()
            return outcomes
        }
        let askCount = outcomes.count
        #expect(askCount >= queryableCount * rounds)

        // Reaching this point means no asker was left suspended, and a double resume
        // would have trapped; the ledger below checks that each ended in exactly one way.
        var answered: Set<Int> = []
        var failed: Set<Int> = []
        var cancelled = 0
        for outcome in outcomes {
            switch outcome {
            case .answered(let input, let value):
                #expect(value == input * 2, "asker \(input) got someone else's answer \(value)")
                answered.insert(input)
            case .presenterError(let input, let code):
                #expect(code == input)
                failed.insert(input)
            case .cancelled:
                cancelled += 1
            case .unexpected(let description):
                Issue.record("unexpected outcome: \(description)")
            }
        }
        // An answer counts as delivered exactly when its asker received it.
        #expect(answered == ledger.deliveredAnswers)
        #expect(failed == ledger.deliveredErrors)
        #expect(ledger.acceptedSecondAnswers == 0)
        #expect(answered.count + failed.count + cancelled == askCount)
        for queryable in queryables {
            #expect(!queryable.isQuerying)
        }
    }

    private static func ask(_ queryable: Queryable<Int, Int>, input: Int) async -> AskerOutcome {
        let attempt: @Sendable () async throws -> Int
        switch Int.random(in: 0..<5) {
        case 0:
            attempt = { try await queryable.query(with: input) }
        case 1:
            attempt = { try await queryable.query(with: input, timeout: .microseconds(50)) }
        case 2:
            attempt = {
                let task = Task { try await queryable.query(with: input) }
                task.cancel()
                return try await task.value
            }
        case 3:
            attempt = {
                async let value = queryable.query(with: input)
                queryable.cancel()
                return try await value
            }
        default:
            attempt = {
                let task = Task { try await queryable.query(with: input) }
                await Task.yield()
                task.cancel()
                return try await task.value
            }
        }
        do {
            return .answered(input: input, value: try await attempt())
        } catch let error as QueryCancellationError {
            return .cancelled(error.reason)
        } catch let error as PresenterFailure {
            return .presenterError(input: input, code: error.code)
        } catch {
            return .unexpected("\(error)")
        }
    }

    /// Receives queries and handles each concurrently in one of several ways, so answers
    /// race with replacements, timeouts, cancellations and each other.
    private static func present(_ queryable: Queryable<Int, Int>, ledger: PresenterLedger) async {
        await withDiscardingTaskGroup { group in
            for await pending in queryable.pendingQueries {
                let input = pending.input
                switch Int.random(in: 0..<7) {
                case 0, 1:
                    ledger.recordAnswer(input, delivered: pending.answer(with: input * 2))
                case 2:
                    ledger.recordAnswer(input, delivered: pending.answer(with: input * 2))
                    ledger.recordSecondAnswer(delivered: pending.answer(with: -1))
                case 3:
                    ledger.recordError(input, delivered: pending.answer(throwing: PresenterFailure(code: input)))
                case 4:
                    pending.cancel()
                case 5:
                    // Dropped without an answer; its deinit must cancel it.
                    break
                default:
                    group.addTask {
                        ledger.recordAnswer(input, delivered: pending.answer(with: input * 2))
                    }
                    group.addTask {
                        pending.cancel()
                    }
                }
            }
        }
    }
}
