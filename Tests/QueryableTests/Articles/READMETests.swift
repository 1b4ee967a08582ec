import Foundation
import Queryable
import Testing

// The README's `Queryable` example. ArticleCodeTests in SQLiteTests checks that the README's
// blocks appear here.

enum READMEExample {
    /// Compiled, not run by the tests: the presenter asks the person at the terminal.
    static func confirm() async throws -> Bool {
        let confirmation = Queryable<String, Bool>()
        Task { await TerminalPresenter().present(confirmation) { .confirmation("Delete \($0)?", default: false) } }
        let sure = try await confirmation.query(with: "42 rows")  // the terminal answers; Ctrl-C cancels
        return sure
    }
}
