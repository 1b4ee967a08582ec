extension Queryable {
    /// Answers every query with `body` until the calling task is cancelled.
    ///
    /// This is the closure presenter: `body` gets the query's input and returns the answer.
    /// If `body` throws, the asker receives that error; a thrown ``QueryCancellationError``
    /// cancels the query with its reason instead. When the query ends first (timeout,
    /// `cancel()`, a newer query), the task running `body` is cancelled.
    ///
    /// ```swift
    /// let presenter = Task {
    ///     await confirmation.answerQueries { question in
    ///         question.contains("backup")
    ///     }
    /// }
    /// ```
    public func answerQueries(with body: @escaping @Sendable (Input) async throws -> Answer) async {
        for await query in pendingQueries {
            await Self.answer(query, with: body)
        }
    }

    static func answer(
        _ query: PendingQuery<Input, Answer>,
        with body: @escaping @Sendable (Input) async throws -> Answer
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    query.answer(with: try await body(query.input))
                } catch let error as QueryCancellationError {
                    query.cancel(reason: error.reason)
                } catch is CancellationError {
                    query.cancel(reason: .cancelledByPresenter)
                } catch {
                    query.answer(throwing: error)
                }
            }
            group.addTask {
                await query.waitUntilEnded()
            }
            // Whichever finishes first makes the other pointless: an answered query needs
            // no more waiting, and an ended query needs no more answering.
            await group.next()
            group.cancelAll()
        }
    }
}
