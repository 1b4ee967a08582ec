// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SharingSQLite",
    // Mutex (Synchronization) needs these on Apple platforms; Linux has no minimum.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SQLite", targets: ["SQLite"]),
        .library(name: "QueryCache", targets: ["QueryCache"]),
        .library(name: "Queryable", targets: ["Queryable"]),
        .library(name: "SharingSQLite", targets: ["SharingSQLite"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite"]),
        // The main job on the demo database, until the command-line tool arrives.
        .executableTarget(name: "demo", dependencies: ["SQLite"]),
        // Generic layers with no SQLite in them.
        .target(name: "QueryCache"),
        .testTarget(name: "QueryCacheTests", dependencies: ["QueryCache"]),
        .target(name: "Queryable"),
        .testTarget(name: "QueryableTests", dependencies: ["Queryable"]),
        // Live values backed by SQL queries: the cache of QueryCache kept current by SQLite's hooks.
        .target(name: "SharingSQLite", dependencies: ["SQLite", "QueryCache"]),
        .testTarget(name: "SharingSQLiteTests", dependencies: ["SharingSQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
