import Foundation
import SharingSQLite

// `--search`: full-text search on a large table. A table of notes, with an external-content FTS5
// index created by `FullTextIndex`, is built once into a file named by its row count and reused
// by later runs. Then, in one process, contenders take turns running the same searches, median
// of the rounds, after checking that they return the same rows in the same order; and last, a
// live search reader follows commits made by another process.

enum SearchShape {
    static let schema = "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)"
    static let index = FullTextIndex("notes_fts", table: "notes", columns: ["title", "body"], contentRowID: "id")
    static let titleWords = 3
    static let bodyWords = 12

    /// The vocabulary: every two-syllable word of 17 consonants and 5 vowels, 7,225 words. With
    /// 15 words a note, uniformly drawn, a word is in about 0.2 % of the notes, and a prefix
    /// of a syllable and a consonant (`bal` is `bala` to `balu`) in about 1 %.
    static let vocabulary: [String] = {
        let syllables = "bcdfghjklmnprstvz".flatMap { consonant in "aeiou".map { String([consonant, $0]) } }
        return syllables.flatMap { first in syllables.map { first + $0 } }
    }()

    /// Note `id`'s title and body: the same words on every machine and every run.
    static func note(_ id: Int) -> (title: String, body: String) {
        var random = SplitMix64(seed: UInt64(id))
        func words(_ count: Int) -> String {
            (0..<count).map { _ in vocabulary[Int(random.next() % UInt64(vocabulary.count))] }
                .joined(separator: " ")
        }
        let title = words(titleWords)
        return (title, words(bodyWords))
    }

    /// A word no generated note contains (`x`, `q` and `w` are not in the vocabulary): the
    /// rows another process adds for the live search carry it.
    static let marker = "xqmark"
    static let markerInsert = "INSERT INTO notes(title, body) VALUES ('\(marker) note', 'written by another process')"

    /// The file that holds `rows` notes and their index, built on first use. The name says how
    /// many rows, and the shape's version, so that reruns reuse it and a change rebuilds it.
    static func database(rows: Int) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlite-benchmarks-search-v1-\(rows)-rows")
        let path = directory.appendingPathComponent("notes.sqlite").path
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Built under another name and renamed when complete: an interrupted build is not reused.
        let building = directory.appendingPathComponent("building-\(UUID().uuidString).sqlite").path
        FileHandle.standardError.write(Data("building \(rows) notes and their index into \(path)\n".utf8))
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let db = try Database(path: building)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute(schema)
            try db.transaction { db in
                for id in 1...rows {
                    let note = note(id)
                    try db.execute(
                        "INSERT INTO notes(id, title, body) VALUES (?, ?, ?)",
                        [.integer(Int64(id)), .text(note.title), .text(note.body)])
                }
            }
            // Created after the rows, the index fills in one rebuild rather than row by row.
            try db.create(index)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try FileManager.default.moveItem(atPath: building, toPath: path)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        FileHandle.standardError.write(Data("built in \(String(format: "%.0f", seconds)) s\n".utf8))
        return path
    }
}

/// The generator of the notes' words: small, fast, and the same everywhere.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One search of the benchmark: what a user typed, how its words combine, and how many of the
/// best matches to show (nil: all of them).
struct SearchQuery {
    let label: String
    let text: String
    let mode: FTS5Pattern.Mode
    let limit: Int?
    /// The pattern as bound to `MATCH`, for the contenders that take FTS5 syntax.
    let rawPattern: String

    init(_ label: String, text: String, mode: FTS5Pattern.Mode, limit: Int?) throws {
        self.label = label
        self.text = text
        self.mode = mode
        self.limit = limit
        rawPattern = try FTS5Pattern(matching: text, mode: mode).rawPattern
    }

    /// The search in SQL, as one writes it by hand: the index's own rows, which read the
    /// indexed columns from the content table, best match first.
    var sql: String {
        "SELECT rowid, title, body FROM notes_fts WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts), rowid"
            + (limit == nil ? "" : " LIMIT ?")
    }

    static func all() throws -> [SearchQuery] {
        [
            try SearchQuery("prefix `bal`, all matches", text: "bal", mode: .allPrefixes, limit: nil),
            try SearchQuery("prefix `bal`, best 20", text: "bal", mode: .allPrefixes, limit: 20),
            try SearchQuery("prefixes `ka mo`, best 20", text: "ka mo", mode: .allPrefixes, limit: 20),
        ]
    }
}

/// What a search returned: the rows' ids in order and the length of their text, computed after
/// the clock stopped. Equal for every contender, or the comparison means nothing.
struct SearchDigest: Equatable {
    var ids: [Int64] = []
    var textBytes = 0

    mutating func add(id: Int64, title: String, body: String) {
        ids.append(id)
        textBytes += title.utf8.count + body.utf8.count
    }
}

/// One way of running the searches on the benchmark's database.
protocol SearchContender {
    var name: String { get }
    /// Runs `query` once; its time in ms (the fetch into values, nothing else) and what it returned.
    func run(_ query: SearchQuery) throws -> (milliseconds: Double, digest: SearchDigest)
}

/// This package's query builder, every run building its request from what the user typed, into
/// `FetchableRow` values: on the index's own rows (the same SQL as the raw contender), or on the
/// content table, which the search filters through the index.
struct QueryBuilderSearchContender: SearchContender {
    enum Target { case index, contentTable }

    struct IndexedNote: TableRecord, FetchableRow {
        static let tableName = SearchShape.index.name
        var id: Int64, title: String, body: String
        init(row: BorrowedRow) throws {
            id = try row[0]
            title = try row[1]
            body = try row[2]
        }
    }

    struct Note: TableRecord, FetchableRow {
        static let tableName = SearchShape.index.table
        var id: Int64, title: String, body: String
        init(row: BorrowedRow) throws {
            id = try row[0]
            title = try row[1]
            body = try row[2]
        }
    }

    let target: Target
    private let db: Database

    var name: String { target == .index ? "SQLite query builder" : "SQLite query builder, content table" }

    init(_ target: Target, path: String) throws {
        self.target = target
        db = try Database(path: path, configuration: .readOnly)
    }

    func run(_ query: SearchQuery) throws -> (milliseconds: Double, digest: SearchDigest) {
        var digest = SearchDigest()
        switch target {
        case .index:
            var notes: [IndexedNote] = []
            let time = try milliseconds {
                let search = FullTextSearch(
                    try FTS5Pattern(matching: query.text, mode: query.mode), index: SearchShape.index.name)
                var request = IndexedNote.all()
                    .select(Column("rowid"), Column("title"), Column("body"))
                    .filter(search)
                    .sort(search.bm25(), Column("rowid"))
                if let limit = query.limit { request = request.limit(limit) }
                notes = try request.fetchAll(db)
            }
            for note in notes { digest.add(id: note.id, title: note.title, body: note.body) }
            return (time, digest)
        case .contentTable:
            var notes: [Note] = []
            let time = try milliseconds {
                let search = SearchShape.index.search(try FTS5Pattern(matching: query.text, mode: query.mode))
                var request = Note.all()
                    .select(Column("id"), Column("title"), Column("body"))
                    .filter(search)
                    .sort(search.bm25(), Column("id"))
                if let limit = query.limit { request = request.limit(limit) }
                notes = try request.fetchAll(db)
            }
            for note in notes { digest.add(id: note.id, title: note.title, body: note.body) }
            return (time, digest)
        }
    }
}

/// A live search, as a search box shows it: the notes with a word starting with the marker.
struct MarkerSearch: FetchKeyRequest {
    func fetch(_ db: Database) throws -> [Int64] {
        let search = SearchShape.index.search(
            try FTS5Pattern(matching: String(SearchShape.marker.prefix(3)), mode: .allPrefixes))
        return try Table(SearchShape.index.table).filter(search).select(Column("id"))
            .sort(search.bm25(), Column("id")).asRequest(of: Int64.self).fetchAll(db)
    }
}

func runSearchBenchmarks(_ options: Options) throws {
    let path = try SearchShape.database(rows: options.rows)
    // A run that was stopped may have left the live search's rows behind.
    try removeAddedNotes(path: path, rows: options.rows)
    var queries = try SearchQuery.all()
    if let query = options.query {
        guard query <= queries.count else { throw BenchmarkError("--query takes 1 to \(queries.count)") }
        queries = [queries[query - 1]]
    }
    var contenders: [any SearchContender] = [
        try RawSearchContender(path: path),
        try QueryBuilderSearchContender(.index, path: path),
        try QueryBuilderSearchContender(.contentTable, path: path),
        try GRDBSearchContender(path: path),
    ]
    if !options.contenders.isEmpty {
        contenders = contenders.filter { $0.name == "raw sqlite3" || options.contenders.contains($0.name) }
    }

    var samples: [String: [String: [Double]]] = [:]  // query → contender → times
    var returned: [String: SearchDigest] = [:]
    for round in 1...options.rounds {
        if !options.csv { FileHandle.standardError.write(Data("round \(round)/\(options.rounds)\n".utf8)) }
        for query in queries {
            for contender in contenders {
                let (time, digest) = try contender.run(query)
                if let expected = returned[query.label], expected != digest {
                    throw BenchmarkError(
                        "\(contender.name) returned \(digest.ids.count) rows for \(query.label), not the \(expected.ids.count) rows of the others (or not in the same order)"
                    )
                }
                returned[query.label] = digest
                samples[query.label, default: [:]][contender.name, default: []].append(time)
            }
        }
    }

    if options.csv {
        print("search,rows_returned,contender,median_ms,ratio_to_raw")
    } else {
        print(
            "notes: \(options.rows), rounds: \(options.rounds), medians in ms, ratio = median / raw sqlite3 median"
        )
        print("")
        print("| search | rows returned | contender | median ms | × raw |")
        print("|---|---:|---|---:|---:|")
    }
    for query in queries {
        guard let byContender = samples[query.label], let raw = byContender["raw sqlite3"].map(median) else { continue }
        let count = returned[query.label]?.ids.count ?? 0
        for contender in contenders {
            guard let times = byContender[contender.name] else { continue }
            let value = median(times)
            if options.csv {
                print(
                    "\"\(query.label)\",\(count),\"\(contender.name)\",\(String(format: "%.2f", value)),\(String(format: "%.3f", value / raw))"
                )
            } else {
                print(
                    "| \(query.label) | \(count) | \(contender.name) | \(String(format: "%.2f", value)) | \(String(format: "%.2f", value / raw)) |"
                )
            }
        }
    }
    if options.csv || options.skipLive { return }

    // Rounds alternate the two readers, so that a busy moment of the machine spreads over both.
    let rounds = 4
    let commits = 50
    var ordinary: [Double] = []
    var searching: [Double] = []
    var fetches: [Double] = []
    let pool = try DatabasePool(path: path)
    let reader = SharedReader(wrappedValue: [-1], .fetch(MarkerSearch(), database: pool))
    for round in 1...rounds {
        FileHandle.standardError.write(Data("live round \(round)/\(rounds)\n".utf8))
        ordinary += try countReaderLatencies(commits: commits)
        let watcher = try CountWatcher(reader) { ids in ids == [-1] ? nil : ids.count }
        searching += try crossProcessLatencies(
            path: path, insert: SearchShape.markerInsert, commits: commits, watcher: watcher)
        // What the reader's refetch costs by itself, with the rows the writer added.
        let db = try Database(path: path, configuration: .readOnly)
        for _ in 1...commits { fetches.append(try milliseconds { _ = try MarkerSearch().fetch(db) }) }
        try removeAddedNotes(path: path, rows: options.rows, checkpoint: round == rounds)
    }
    print("")
    print(
        "| another process commits → reader holds the new row (\(rounds) × \(commits) commits each) | p50 ms | p99 ms |"
    )
    print("|---|---:|---:|")
    for (label, latencies) in [
        ("count of a small table (the ordinary live value)", ordinary),
        ("live search of the \(options.rows) notes, prefix `xqm`", searching),
    ] {
        print(
            "| \(label) | \(String(format: "%.2f", percentile(latencies, 0.5))) | \(String(format: "%.2f", percentile(latencies, 0.99))) |"
        )
    }
    print("")
    print(
        "the live search's fetch alone, 1 to \(commits) matching notes, in this process: p50 \(String(format: "%.2f", percentile(fetches, 0.5))) ms, p99 \(String(format: "%.2f", percentile(fetches, 0.99))) ms"
    )
}

/// Deletes the notes the live search's writer added (the triggers take them out of the index),
/// and with `checkpoint`, empties the WAL, so that every run's searches read the same file.
private func removeAddedNotes(path: String, rows: Int, checkpoint: Bool = true) throws {
    let db = try Database(path: path)
    try db.execute("DELETE FROM notes WHERE id > ?", [.integer(Int64(rows))])
    if checkpoint { try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
}
