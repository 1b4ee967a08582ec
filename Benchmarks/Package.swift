// swift-tools-version: 6.1
import PackageDescription

// A package of its own, so that GRDB and the benchmark programs stay out of the main package,
// whose SQLite libraries need nothing but libsqlite3.
let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(name: "SharingSQLite", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // sqlq's command-line parser, for the start-up floor of a program that only parses options.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Raw PostgresNIO, the floor the PostgreSQL source is measured against.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // Raw sqlite3 calls, the floor every other contender is measured against.
        .systemLibrary(name: "BenchSQLite", path: "Sources/BenchSQLite", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "SQLiteBenchmarks",
            dependencies: [
                "BenchSQLite",
                .product(name: "SQLite", package: "SharingSQLite"),
                .product(name: "SharingSQLite", package: "SharingSQLite"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The PostgreSQL source against raw PostgresNIO, on a throwaway server (see run-postgres).
        .executableTarget(
            name: "PostgreSQLBenchmarks",
            dependencies: [
                .product(name: "PostgreSQL", package: "SharingSQLite"),
                .product(name: "SQLite", package: "SharingSQLite"),
                // `SharedReader` and its Observation, which the live measures watch.
                .product(name: "SharingSQLite", package: "SharingSQLite"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // Whole-process timings of the sqlq executable against the sqlite3 shell (see run-cli).
        // What the sqlq benchmarks share: the 1,000,000-row items database, built with raw sqlite3,
        // a monotonic clock and the reading of their options.
        .target(name: "BenchmarkSupport", dependencies: ["BenchSQLite"]),
        .executableTarget(name: "CLIBenchmarks", dependencies: ["BenchSQLite", "BenchmarkSupport"]),
        // `sqlq serve` under 1,000 live clients, and its JSON API against Datasette's (see run-serve).
        .executableTarget(name: "ServeBenchmarks", dependencies: ["BenchSQLite", "BenchmarkSupport"]),
        // sqlq's `query` options parsed by argument-parser, and nothing else: the floor of sqlq's start.
        .executableTarget(
            name: "ArgumentParserFloor",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
