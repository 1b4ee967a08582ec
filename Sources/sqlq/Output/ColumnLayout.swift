import SQLite

/// The width and alignment of each column of a table or Markdown result: a column is as wide as
/// its widest cell (in terminal columns, see ``TextBytes/displayWidth(_:)``), and right-aligned
/// when every value in it that is not NULL is a number, and there is one.
struct ColumnLayout {
    enum Style {
        case table
        case markdown
    }

    let style: Style
    private(set) var widths: [Int]
    private(set) var rightAligned: [Bool]
    private var hasValue: [Bool]

    /// The table format's layout, from its header: `columns` as they are, however they print.
    init(tableHeader columns: [String]) {
        style = .table
        widths = columns.map { TextBytes.displayWidth(TableWriter.visible($0)) }
        rightAligned = [Bool](repeating: true, count: columns.count)
        hasValue = [Bool](repeating: false, count: columns.count)
    }

    /// The Markdown format's layout, from its header: escaped, and at least three characters,
    /// the rule's minimum.
    init(markdownHeader columns: [String]) {
        style = .markdown
        widths = columns.map { max(TextBytes.displayWidth(MarkdownWriter.escape($0)), 3) }
        rightAligned = [Bool](repeating: true, count: columns.count)
        hasValue = [Bool](repeating: false, count: columns.count)
    }

    @inline(__always)
    mutating func measure(_ cell: Cell, column: Int) {
        let width =
            switch style {
            case .table: TableWriter.width(of: cell)
            case .markdown: MarkdownWriter.width(of: cell)
            }
        if width > widths[column] { widths[column] = width }
        if cell.isNull { return }
        hasValue[column] = true
        if !cell.isNumber { rightAligned[column] = false }
    }

    mutating func measure(_ row: [DatabaseValue]) {
        for (column, value) in row.enumerated() {
            Cell.withValue(value) { measure($0, column: column) }
        }
    }

    mutating func measure(_ row: [Cell.Owned]) {
        for (column, value) in row.enumerated() {
            Cell.withOwned(value) { measure($0, column: column) }
        }
    }

    /// The layout once every row is measured: a column with only NULLs is left-aligned.
    func finished() -> ColumnLayout {
        var layout = self
        for index in layout.rightAligned.indices where !hasValue[index] { layout.rightAligned[index] = false }
        return layout
    }

    /// The width a cell of `width` characters is padded to in `column`, which a cell wider than
    /// a layout made from the first rows only overflows.
    @inline(__always)
    func padding(_ width: Int, column: Int) -> Int {
        max(0, widths[column] - width)
    }
}
