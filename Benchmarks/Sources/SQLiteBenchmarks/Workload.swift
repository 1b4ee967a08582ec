/// The workloads of the raw C baseline, run by every contender on its own in-memory database.
enum Workload: String, CaseIterable {
    /// `rows` items inserted in one transaction.
    case insert
    /// `rows` records inserted in one transaction through each library's record API, each record
    /// getting its id, into a fresh database.
    case insertRecords = "insert_records"
    /// Every item's five columns into structs.
    case fetchAll = "fetch_all"
    /// 200,000 rows of ten integer columns into structs.
    case fetchInts = "fetch_ints"
    /// 2,000 runs of a filtered, sorted, limited query.
    case filtered
    /// 20,000 lookups by primary key.
    case pointLookup = "point_lookup"
}

enum Shape {
    static let schema = """
        CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL,
                           priority INTEGER NOT NULL, created_at REAL NOT NULL);
        CREATE INDEX items_created ON items(created_at);
        CREATE TABLE ints(i0 INT,i1 INT,i2 INT,i3 INT,i4 INT,i5 INT,i6 INT,i7 INT,i8 INT,i9 INT);
        """
    static let insertItem = "INSERT INTO items(title, done, priority, created_at) VALUES (?,?,?,?)"
    static let insertInts = "INSERT INTO ints VALUES (?,?,?,?,?,?,?,?,?,?)"
    static let selectItems = "SELECT id, title, done, priority, created_at FROM items"
    static let selectInts = "SELECT * FROM ints"
    static let filtered =
        "SELECT id, title, done, priority, created_at FROM items WHERE done = ? AND priority >= ? ORDER BY created_at DESC LIMIT ?"
    static let pointLookup = "SELECT id, title, done, priority, created_at FROM items WHERE id = ?"
    static let recordsSchema = """
        CREATE TABLE records(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL,
                             priority INTEGER NOT NULL, created_at REAL NOT NULL)
        """
    static let insertRecord = "INSERT INTO records(title, done, priority, created_at) VALUES (?,?,?,?)"
    static let intRows = 200_000
    static let filteredRuns = 2_000
    static let lookups = 20_000

    static func title(_ i: Int) -> String { "item \(i)" }
    static func done(_ i: Int) -> Bool { i % 3 == 0 }
    static func priority(_ i: Int) -> Int { i % 5 }
    static func createdAt(_ i: Int) -> Double { 1_700_000_000 + Double(i) }
    static func lookupID(_ run: Int, rows: Int) -> Int64 { Int64(1 + (run * 7919) % rows) }
}

/// One way of doing the workloads: raw sqlite3, this package, or GRDB.
protocol Contender {
    var name: String { get }
    /// Fresh database with the schema, `rows` items and the ints table. Only `insert` is timed
    /// here, and only when the contender measures it.
    mutating func setUp(rows: Int, timeInsert: (() throws -> Void) throws -> Void) throws
    /// Runs one workload and returns a checksum, so the work cannot be optimized away; nil when
    /// the contender does not take part in it.
    func run(_ workload: Workload, rows: Int) throws -> Int?
}
