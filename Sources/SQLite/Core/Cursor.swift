/// A lazy sequence of decoded rows: each `next()` steps the statement once.
///
/// ```swift
/// let cursor = try db.cursor(Item.self, "SELECT * FROM items")
/// while let item = try cursor.next() { print(item.title) }
/// ```
///
/// The cursor holds its statement until it is exhausted or released. Iterate it on the thread
/// that owns the connection, inside the same `read` or `write` block.
public final class Cursor<Element> {
    private let statement: Statement
    private let decode: (BorrowedRow) throws -> Element
    private var isDone = false

    init(statement: Statement, arguments: [DatabaseValue], decode: @escaping (BorrowedRow) throws -> Element) throws {
        try statement.bind(arguments)
        self.statement = statement
        self.decode = decode
        statement.isBusy = true
    }

    deinit { finish() }

    /// The next element, or nil at the end.
    public func next() throws -> Element? {
        guard !isDone else { return nil }
        do {
            guard try statement.step() else {
                finish()
                return nil
            }
            return try decode(BorrowedRow(statement: statement))
        } catch {
            finish()
            throw error
        }
    }

    /// Calls `body` for each remaining element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }

    /// Collects the remaining elements.
    public func collect() throws -> [Element] {
        var elements: [Element] = []
        while let element = try next() { elements.append(element) }
        return elements
    }

    private func finish() {
        guard !isDone else { return }
        isDone = true
        statement.reset()
        statement.isBusy = false
    }
}
