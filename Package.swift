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
        .executable(name: "sqlq", targets: ["sqlq"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
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
        // Generic layers with no SQLite in them.
        .target(name: "QueryCache"),
        .testTarget(name: "QueryCacheTests", dependencies: ["QueryCache"]),
        .target(name: "Queryable"),
        .testTarget(name: "QueryableTests", dependencies: ["Queryable"]),
        // Live values backed by SQL queries: the cache of QueryCache kept current by SQLite's hooks.
        .target(name: "SharingSQLite", dependencies: ["SQLite", "QueryCache"]),
        .testTarget(name: "SharingSQLiteTests", dependencies: ["SharingSQLite"]),
        // The command-line tool: dynamic filtered queries on any SQLite file, live with `watch`.
        .executableTarget(
            name: "sqlq",
            dependencies: [
                "SharingSQLite",
                "Queryable",
                // Output and import read and bind columns with the C API, from and into byte buffers.
                "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "sqlqTests", dependencies: ["sqlq", "SQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
