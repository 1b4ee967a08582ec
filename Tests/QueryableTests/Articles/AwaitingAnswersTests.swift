import Foundation
import Queryable
import Synchronization
import Testing

// The code of the "Awaiting answers" article (Sources/Queryable/Queryable.docc/AwaitingAnswers.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum AwaitingAnswersArticle {
    /// Typed lines, given in advance: a terminal for tests.
    final class TypedLines: TerminalLineReader {
        private let lines: Mutex<[String]>
        init(_ lines: [String]) { self.lines = Mutex(lines) }

        var isTerminal: Bool { true }
        func readLine() async throws -> TerminalInputEvent {
            lines.withLock { $0.isEmpty ? .endOfInput : .line($0.removeFirst()) }
        }
    }

    /// Keeps what the presenter writes.
    final class Transcript: TerminalWriter {
        private let text = Mutex("")
        func write(_ text: String) throws { self.text.withLock { $0 += text } }
        var written: String { text.withLock { $0 } }
    }
}

@Suite(.timeLimit(.minutes(1))) struct AwaitingAnswersTests {
    typealias TypedLines = AwaitingAnswersArticle.TypedLines
    typealias Transcript = AwaitingAnswersArticle.Transcript

    @Test func closurePresenter() async throws {
        let confirmation = Queryable<String, Bool>()

        let presenter = Task {
            await confirmation.answerQueries { question in
                question.hasPrefix("Archive")  // archive yes, anything else no
            }
        }
        let archive = try await confirmation.query(with: "Archive 3 lists?")
        let delete = try await confirmation.query(with: "Delete 3 lists?")
        presenter.cancel()

        #expect(archive)
        #expect(!delete)
    }

    @Test func pendingQueries() async throws {
        let name = Queryable<Void, String>()

        let asker = Task { try await name.query() }
        for await query in name.pendingQueries {
            query.answer(with: "Ada")
            break
        }
        print(try await asker.value)  // Ada

        #expect(try await asker.value == "Ada")
        #expect(!name.isQuerying)
    }

    @Test func trigger() async throws {
        let confirmation = Queryable<String, Bool>()
        let presenter = Task { await confirmation.answerQueries { _ in true } }
        defer { presenter.cancel() }

        func cleanUp(confirm: Queryable<String, Bool>.Trigger) async throws -> Bool {
            try await confirm.query(with: "Remove 12 finished reminders?")
        }
        let removed = try await cleanUp(confirm: confirmation.trigger)

        #expect(removed)
    }

    @Test func conflicts() async throws {
        let picker = Queryable<String, Int>(queryConflictPolicy: .cancelNewQuery)

        let first = Task { try await picker.query(with: "first") }
        var presenter = picker.pendingQueries.makeAsyncIterator()
        let waiting = await presenter.next()  // the first query

        do {
            _ = try await picker.query(with: "second")
        } catch let error as QueryCancellationError {
            print(error.reason == .rejectedByOngoingQuery)  // true: the first one is still waiting
        }
        await #expect(throws: QueryCancellationError(reason: .rejectedByOngoingQuery)) {
            try await picker.query(with: "third")
        }

        #expect(waiting?.answer(with: 1) == true)
        #expect(try await first.value == 1)

        let latest = Queryable<String, Int>()  // .cancelPreviousQuery, the default
        let older = Task { try await latest.query(with: "older") }
        var queries = latest.pendingQueries.makeAsyncIterator()
        let olderQuery = try #require(await queries.next())
        let newer = Task { try await latest.query(with: "newer") }

        await #expect(throws: QueryCancellationError(reason: .replacedByNewQuery)) { try await older.value }
        let pending = try #require(await queries.next())
        #expect(pending.input == "newer")
        #expect(olderQuery.hasEnded)
        pending.answer(with: 2)
        #expect(try await newer.value == 2)
    }

    @Test func cancellation() async throws {
        let confirmation = Queryable<String, Bool>()

        do {
            _ = try await confirmation.query(with: "Still there?", timeout: .milliseconds(50))
        } catch let error as QueryCancellationError {
            print(error)  // Query cancelled: no answer arrived within 0.05 seconds; …
        }

        await #expect(throws: QueryCancellationError(reason: .timedOut(after: .milliseconds(50)))) {
            _ = try await confirmation.query(with: "Still there?", timeout: .milliseconds(50))
        }

        let asking = Task { try await confirmation.query(with: "Proceed?") }
        var queries = confirmation.pendingQueries.makeAsyncIterator()
        let pending = try #require(await queries.next())

        asking.cancel()  // the asker gives up: reason .taskCancelled
        await pending.waitUntilEnded()
        print(pending.answer(with: true))  // false: the query had already ended

        await #expect(throws: QueryCancellationError(reason: .taskCancelled)) { try await asking.value }
        #expect(pending.hasEnded)

        let other = Task { try await confirmation.query(with: "Proceed?") }
        let next = try #require(await queries.next())
        confirmation.cancel()  // reason .cancelRequested
        await #expect(throws: QueryCancellationError(reason: .cancelRequested)) { try await other.value }
        #expect(!next.answer(with: true))
    }

    @Test func terminal() async throws {
        let input = TypedLines(["maybe", "y"])
        let output = Transcript()

        let overwrite = Queryable<String, Bool>()
        let presenter = Task {
            await TerminalPresenter(input: input, output: output).present(overwrite) { file in
                .confirmation("Overwrite \(file)?", default: false)
            }
        }
        let answer = try await overwrite.query(with: "config.json")
        presenter.cancel()
        print(output.written)
        // Overwrite config.json? [y/N] Please answer "y" or "n".
        // Overwrite config.json? [y/N]

        #expect(answer)
        #expect(output.written.components(separatedBy: "Overwrite config.json? [y/N]").count == 3)

        let color = try await TerminalPresenter(input: TypedLines(["2"]), output: output).ask(
            .choice("Pick a color", options: ["red", "green"], default: "red"))
        #expect(color == "green")

        let scripted = TerminalPresenter(input: TypedLines([]), output: output, answersWithDefaults: true)
        #expect(try await scripted.ask(.confirmation("Continue?", default: true)))
        await #expect(throws: QueryCancellationError(reason: .endOfInput)) {
            _ = try await TerminalPresenter(input: TypedLines([]), output: output).ask(.text("Name"))
        }
    }
}
