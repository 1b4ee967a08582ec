import ArgumentParser

/// How rows are written: `--format`.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// Aligned columns with a header, for people.
    case table
    /// One JSON array of objects.
    case json
    /// One JSON object per line.
    case ndjson
    /// RFC 4180 comma-separated values with a header line.
    case csv
    /// Tab-separated values with a header line; tabs, newlines, backslashes and other control
    /// characters escaped, NULL written `\N`.
    case tsv
    /// A GitHub-flavoured Markdown table.
    case markdown

    // Spelled out: argument-parser's defaults describe the cases with `String(describing:)`,
    // whose dynamic casts are a measurable part of sqlq's start-up.
    var defaultValueDescription: String { rawValue }
    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// A writer of whole results in this format to `output`.
    func makeWriter(output: OutputStream, style: TextStyle) -> any RowWriter {
        ResultWriter(format: self, output: output, style: style)
    }
}
