// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SharingSQLite",
    // Atomic (Synchronization) needs these on Apple platforms; Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SQLite", targets: ["SQLite"]),
        .library(name: "QueryCache", targets: ["QueryCache"]),
        .library(name: "Queryable", targets: ["Queryable"]),
        .library(name: "LiveQuery", targets: ["LiveQuery"]),
        .library(name: "SharingSQLite", targets: ["SharingSQLite"]),
        .library(name: "PostgreSQL", targets: ["PostgreSQL"]),
        .library(name: "LiveHTTP", targets: ["LiveHTTP"]),
        .executable(name: "sqlq", targets: ["sqlq"]),
    ],
    // An app that uses only the SQLite products turns the traits off
    // (`.package(url: …, from: …, traits: [])`), and SwiftPM then neither resolves nor builds
    // postgres-nio, Hummingbird, SwiftNIO and swift-crypto.
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL product, on postgres-nio."),
        .trait(name: "HTTP", description: "The LiveHTTP product: live values as server-sent events, on Hummingbird."),
        .default(enabledTraits: ["PostgreSQL", "HTTP"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` builds the DocC catalogs in Sources/<Module>/<Module>.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The PostgreSQL wire protocol, for the PostgreSQL module only: no SQLite product links it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // The HTTP server of the LiveHTTP module, behind the `HTTP` trait: no other product links it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // Hummingbird's own: HTTP's field names, and graceful shutdown, which ends the event streams.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Hummingbird's own too: serve's channel handler that answers unparsable requests with a body.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.27.0"),
        // LiveHTTP's tests: a client that streams responses, and the test server's logger.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The lock every module uses: Synchronization.Mutex's shape, on a pthread mutex, which
        // Thread Sanitizer can check.
        .target(name: "Locking"),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        // The values, rows, change sets and read regions every source shares. It imports no
        // database: SQLite's typed reads straight from a statement live in the SQLite module.
        .target(name: "SQLCore"),
        .testTarget(name: "SQLCoreTests", dependencies: ["SQLCore"]),
        // The query builder: requests that render for SQLite and PostgreSQL into a reusable buffer.
        .target(name: "QueryBuilder", dependencies: ["SQLCore"]),
        .testTarget(name: "QueryBuilderTests", dependencies: ["QueryBuilder", "SQLCore"]),
        // Records and migrations on any database: `PersistableRecord` and its layouts, constraint
        // violations, and the migrator's registrations, `.sql` folders and record table.
        .target(name: "SQLRecords", dependencies: ["SQLCore", "QueryBuilder", "Locking"]),
        .testTarget(name: "SQLRecordsTests", dependencies: ["SQLRecords", "SQLCore"]),
        // The SQLite driver: a thin wrapper of the system's libsqlite3, its connections, pools and
        // change hooks; it re-exports SQLCore, QueryBuilder and SQLRecords.
        .target(name: "SQLite", dependencies: ["CSQLite", "SQLCore", "QueryBuilder", "SQLRecords", "Locking"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "Locking", "ChildProcesses"]),
        // What a cache of query results keys and ages its entries by: paths, clocks and the
        // eviction policy, and the bookkeeping that applies it. Both caches share it: the query
        // cache's stores and the live-query engine's records, which serve `SharedReader`.
        .target(name: "QueryEviction"),
        .testTarget(name: "QueryEvictionTests", dependencies: ["QueryEviction"]),
        // A cache of any async query's results by key, with eviction, retries and staleness.
        .target(name: "QueryCache", dependencies: ["QueryEviction", "Locking"]),
        .testTarget(name: "QueryCacheTests", dependencies: ["QueryCache", "Locking"]),
        // Awaiting an answer that someone else gives, and a terminal that asks a person for it.
        .target(name: "Queryable", dependencies: ["Locking"]),
        .testTarget(name: "QueryableTests", dependencies: ["Queryable", "Locking"]),
        // Live values backed by SQL queries, whatever the database: the engine that decides what
        // a change set refetches, `SharedReader` and its keys. It imports no database driver.
        .target(name: "LiveQuery", dependencies: ["SQLCore", "QueryBuilder", "QueryEviction", "Locking"]),
        // Live values on SQLite: the live-query engine fed by SQLite's hooks and the file's changes.
        .target(name: "SharingSQLite", dependencies: ["LiveQuery", "SQLite", "QueryEviction", "Locking"]),
        .testTarget(
            name: "SharingSQLiteTests",
            dependencies: [
                "SharingSQLite", "LiveValueTesting", "Locking", "GettingStartedExample", "ChildProcesses",
            ]),
        // The "Getting started" article's program, which its test runs as a reader would.
        .executableTarget(
            name: "GettingStartedExample", dependencies: ["SharingSQLite"], path: "Tests/Examples/GettingStarted"),
        // The processes tests start (sqlite3 shells, sqlq, servers, browsers), reaped without Foundation's
        // `Process`, whose descriptors leak into every process spawned beside it.
        .target(name: "ChildProcesses", dependencies: ["Locking"], path: "Tests/ChildProcesses"),
        // Waiting for live values in tests, whatever their source.
        .target(name: "LiveValueTesting", dependencies: ["LiveQuery", "Locking"], path: "Tests/LiveValueTesting"),
        // The engine's own rules, on a source that is no database and on SQLite's.
        .testTarget(
            name: "LiveQueryTests",
            dependencies: ["LiveQuery", "QueryEviction", "SharingSQLite", "LiveValueTesting", "Locking"]),
        // The same rows, values, constraint violations, migrations and live values on a PostgreSQL
        // server.
        .target(
            name: "PostgreSQL",
            dependencies: [
                "SQLRecords", "SQLCore", "QueryBuilder", "LiveQuery", "QueryEviction", "Locking",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        .testTarget(
            name: "PostgreSQLTests",
            dependencies: [
                "PostgreSQL", "SQLite", "SharingSQLite", "LiveValueTesting", "Locking", "PostgreSQLInstance",
                "ChildProcesses", "PostgreSQLTestServer",
            ]
        ),
        // The throwaway PostgreSQL servers of the tests, for the PostgreSQL module's and sqlq's.
        .target(
            name: "PostgreSQLTestServer", dependencies: ["PostgreSQL", "ChildProcesses", "Locking"],
            path: "Tests/PostgreSQLTestServer"),
        // An instance of a service reading live values from PostgreSQL, for the tests that run two, and
        // the many random live readers of the differential test.
        .executableTarget(
            name: "PostgreSQLInstance", dependencies: ["PostgreSQL", "SharingSQLite", "LiveValueTesting"],
            path: "Tests/PostgreSQLInstance"),
        // Live values served to browsers as server-sent events, on Hummingbird: any source's keys.
        .target(
            name: "LiveHTTP",
            dependencies: [
                "LiveQuery", "Locking",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["HTTP"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTP"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["HTTP"])),
            ]
        ),
        .testTarget(
            name: "LiveHTTPTests",
            dependencies: [
                "LiveHTTP", "SharingSQLite", "LiveValueTesting", "Locking", "ChildProcesses",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["HTTP"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["HTTP"])),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTP"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["HTTP"])),
            ]
        ),
        // The command-line tool: dynamic filtered queries on any SQLite file, live with `watch`.
        .executableTarget(
            name: "sqlq",
            dependencies: [
                "SharingSQLite",
                "Queryable",
                // The serve state's locks: pthread mutexes, which Thread Sanitizer sees.
                "Locking",
                // Output and import read and bind columns with the C API, from and into byte buffers.
                "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // PostgreSQL URLs in --db, only with the `PostgreSQL` trait: without it sqlq reads SQLite only.
                .target(name: "PostgreSQL", condition: .when(traits: ["PostgreSQL"])),
                // `sqlq serve`, only with the `HTTP` trait: without it sqlq builds without a server.
                .target(name: "LiveHTTP", condition: .when(traits: ["HTTP"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["HTTP"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTP"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["HTTP"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["HTTP"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["HTTP"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["HTTP"])),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["HTTP"])),
            ],
            // The command reference, linked from the top-level README.
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "sqlqTests",
            dependencies: [
                "sqlq", "SQLite", "Locking", "ChildProcesses",
                // sqlq on PostgreSQL, against a throwaway server.
                .target(name: "PostgreSQLTestServer", condition: .when(traits: ["PostgreSQL"])),
                .target(name: "PostgreSQL", condition: .when(traits: ["PostgreSQL"])),
                // The tests of `sqlq serve`, a client that streams responses.
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTP"])),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// CI's Thread Sanitizer pass instruments this package's own modules and leaves its dependencies
// as the plain build compiled them, so that both passes share one build of SwiftNIO, swift-crypto
// and the rest (`SHARING_SQLITE_SANITIZE=thread swift build --build-tests`, see `.ci/run`).
// Unset, as for every user of the package, the manifest declares no unsafe flags at all.
if let sanitizer = Context.environment["SHARING_SQLITE_SANITIZE"], !sanitizer.isEmpty {
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
    }
}
