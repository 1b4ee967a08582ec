import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Shows each new result of `watch`, followed by a status line with the row count and the time
/// of the last change:
///
///     -- 10 rows, last change at 14:03:22
///
/// On a terminal the screen is redrawn in place and the result cut to the window's height. Into
/// a pipe or a file, each result is written after the previous one, with no escape sequences, so
/// that another program can read every redraw.
final class WatchDisplay {
    private let output: OutputStream
    private let format: OutputFormat
    private let style: TextStyle
    private let counts: Bool
    private let isTerminal: Bool
    /// How a row's values become cells, for a database whose values the writers cannot take
    /// as they are (PostgreSQL's text forms), made for the columns of each result; nil: as they are.
    private let cells: (([String]) -> ([DatabaseValue]) -> [Cell.Owned])?
    private var shown: (result: ResultSet, error: String?)?
    private var lastChange = ""

    init(
        output: OutputStream, format: OutputFormat, counts: Bool,
        cells: (([String]) -> ([DatabaseValue]) -> [Cell.Owned])? = nil
    ) {
        self.output = output
        self.cells = cells
        self.format = format
        self.counts = counts
        isTerminal = output.isTerminal
        style = .forDescriptor(output.fileDescriptor)
        if isTerminal { output.write("\u{1B}[?25l") }  // hides the cursor while redrawing
    }

    /// Draws `result` unless it is what the screen already shows.
    func show(_ result: ResultSet, error: String?) {
        if let shown, shown.result == result, shown.error == error { return }
        if shown?.result != result { lastChange = Self.timeOfDay() }
        shown = (result, error)
        var visible = result
        var hidden = 0
        if isTerminal {
            output.write("\u{1B}[H\u{1B}[2J")
            let room = max(1, Self.windowHeight(of: output.fileDescriptor) - 5 - FacetWriter.lineCount(result.facets))
            if visible.rows.count > room {
                hidden = visible.rows.count - room + 1
                visible.rows.removeLast(hidden)
            }
        }
        if counts {
            output.writeLine(result.rows.first?.first?.cellText ?? "0")
        } else if !result.facets.isEmpty {
            FacetWriter.write(visible, format: format, to: output, style: style, showsRowCount: false)
        } else if let cells {
            format.write(
                columns: visible.columns, rows: visible.rows.map(cells(visible.columns)), to: output, style: style,
                showsRowCount: false)
        } else if format == .table {
            ResultWriter(format: .table, output: output, style: style, showsRowCount: false).write(visible)
        } else {
            format.makeWriter(output: output, style: style).write(visible)
        }
        if hidden > 0 { output.writeLine(style.dim("… \(hidden) more rows below")) }
        let rows = counts ? "" : (result.rows.count == 1 ? "1 row, " : "\(result.rows.count) rows, ")
        var status = "-- " + rows + "last change at " + lastChange
        if let error {
            status += "; the last refresh failed, showing the previous result: " + String(error.prefix { $0 != "\n" })
        }
        if isTerminal { status += " (Ctrl-C to stop)" }
        output.writeLine(error == nil ? style.dim(status) : style.red(status))
        output.flush()
    }

    /// Gives the terminal its cursor back.
    func finish() {
        if isTerminal { output.write("\u{1B}[?25h") }
        output.flush()
    }

    /// The local time as `HH:mm:ss`.
    private static func timeOfDay() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return twoDigits(parts.tm_hour) + ":" + twoDigits(parts.tm_min) + ":" + twoDigits(parts.tm_sec)
    }

    /// The height of the terminal `descriptor` is, or 24 when it does not say.
    private static func windowHeight(of descriptor: Int32) -> Int {
        var size = winsize()
        guard withUnsafeMutablePointer(to: &size, { ioctl(descriptor, UInt(TIOCGWINSZ), $0) }) == 0, size.ws_row > 0
        else { return 24 }
        return Int(size.ws_row)
    }
}
