// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SharingSQLite",
    products: [
        .library(name: "SQLite", targets: ["SQLite"]),
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
    ],
    swiftLanguageModes: [.v6]
)
