import ArgumentParser

/// The formats `import` reads.
enum ImportFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    /// Comma-separated values with a header line (RFC 4180).
    case csv
    /// One JSON array of objects.
    case json
    /// One JSON object per line (also `.jsonl`).
    case ndjson

    // Spelled out rather than described with `String(describing:)`, as for `OutputFormat`.
    var defaultValueDescription: String { rawValue }
    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    /// The format a file name's extension implies, if any.
    init?(fileName: String) {
        let lowered = fileName.lowercased()
        if lowered.hasSuffix(".csv") {
            self = .csv
        } else if lowered.hasSuffix(".json") {
            self = .json
        } else if lowered.hasSuffix(".ndjson") || lowered.hasSuffix(".jsonl") {
            self = .ndjson
        } else {
            return nil
        }
    }
}
