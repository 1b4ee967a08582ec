/// A progress bar on standard error, redrawn in place: `[#########-----------]  45%  12000 rows`.
///
/// Drawn only when standard error is a terminal, and only when the percentage changes, so that
/// a large import spends its time importing.
final class ProgressBar {
    private let output: OutputStream?
    private let total: Int
    private var shownPercent = -1

    init(total: Int) {
        let errors = OutputStream(fileDescriptor: 2)
        output = errors.isTerminal && total > 0 ? errors : nil
        self.total = total
    }

    func update(done: Int, rows: Int) {
        guard let output else { return }
        let percent = min(100, done * 100 / total)
        guard percent != shownPercent else { return }
        shownPercent = percent
        let width = 30
        let filled = percent * width / 100
        output.write(
            "\r[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] ")
        output.write((percent < 10 ? "  " : percent < 100 ? " " : "") + "\(percent)%  \(rows) rows")
        output.flush()
    }

    /// Erases the bar.
    func finish() {
        guard let output, shownPercent >= 0 else { return }
        output.write("\r\u{1B}[K")
        output.flush()
    }
}
