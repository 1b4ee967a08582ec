import Foundation
import SQLCore
import SQLRecords
import Testing

/// A migrator's target with no database behind it: registration, checksums and status need none.
enum NoDriver: MigratableDatabase {
    typealias MigrationBody = @Sendable () -> Void
}

/// A folder removed afterwards.
final class TemporaryDirectory {
    let path = NSTemporaryDirectory() + "sqlrecords-tests-" + UUID().uuidString

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    @Test("a folder registers its numbered files in numeric order, with their checksums")
    func folderOrder() throws {
        let folder = try TemporaryDirectory()
        try "CREATE TABLE b(x);".write(toFile: folder.file("0010_b.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE a(x);".write(toFile: folder.file("0002_a.sql"), atomically: true, encoding: .utf8)
        try "not a migration".write(toFile: folder.file("README.md"), atomically: true, encoding: .utf8)
        var migrator = DatabaseMigrator<NoDriver>()
        try migrator.registerMigration("0001_code") {}
        try migrator.registerMigrations(inDirectory: folder.path)
        #expect(migrator.migrations.map(\.identifier) == ["0001_code", "0002_a", "0010_b"])
        #expect(migrator.migrations.map(\.file) == [nil, folder.file("0002_a.sql"), folder.file("0010_b.sql")])
        #expect(migrator.migrations[0].checksum == nil)
        #expect(migrator.migrations[1].checksum?.count == 16)
        #expect(migrator.migrations[1].checksum != migrator.migrations[2].checksum)
    }

    @Test("an identifier registered twice is an error that names the first file")
    func registeredTwice() throws {
        let folder = try TemporaryDirectory()
        try "SELECT 1;".write(toFile: folder.file("0001_one.sql"), atomically: true, encoding: .utf8)
        var migrator = DatabaseMigrator<NoDriver>()
        try migrator.registerMigrations(inDirectory: folder.path)
        let error = #expect(throws: MigrationError.self) { try migrator.registerMigrations(inDirectory: folder.path) }
        guard case .registeredTwice(let first) = error?.reason else {
            Issue.record("expected registeredTwice, got \(String(describing: error))")
            return
        }
        #expect(first == folder.file("0001_one.sql"))
        #expect(migrator.migrations.count == 1)
    }

    @Test("the status of each migration: applied, pending, edited since applied, or unknown")
    func status() throws {
        var migrator = DatabaseMigrator<NoDriver>()
        try migrator.registerMigration("0001_same", sql: "CREATE TABLE a(x)")
        try migrator.registerMigration("0002_edited", sql: "CREATE TABLE b(y)")
        try migrator.registerMigration("0003_new", sql: "CREATE TABLE c(z)")
        let then = Date(timeIntervalSince1970: 1_700_000_000)
        let applied = [
            AppliedMigration(identifier: "0001_same", checksum: migrator.migrations[0].checksum, appliedAt: then),
            AppliedMigration(identifier: "0002_edited", checksum: "0000000000000000", appliedAt: then),
            AppliedMigration(identifier: "0000_gone", checksum: nil, appliedAt: then),
        ]
        #expect(
            migrator.status(applied: applied).map(\.state) == [
                .applied(then), .changedSinceApplied(then), .pending, .unknown(then),
            ])
        let error = #expect(throws: MigrationError.self) { try migrator.pending(applied: applied) }
        guard case .checksumMismatch = error?.reason else {
            Issue.record("expected checksumMismatch, got \(String(describing: error))")
            return
        }
        #expect(error?.identifier == "0002_edited")
        #expect(try migrator.pending(applied: [applied[0]]).map(\.identifier) == ["0002_edited", "0003_new"])
    }

    @Test("badly named migration files are an error that says how to name them")
    func badNames() throws {
        let folder = try TemporaryDirectory()
        try "SELECT 1;".write(toFile: folder.file("create.sql"), atomically: true, encoding: .utf8)
        var migrator = DatabaseMigrator<NoDriver>()
        let error = #expect(throws: MigrationError.self) { try migrator.registerMigrations(inDirectory: folder.path) }
        #expect(error?.description.contains("NNNN_name.sql") == true)
        let missing = #expect(throws: MigrationError.self) {
            try migrator.registerMigrations(inDirectory: folder.file("nope"))
        }
        #expect(missing?.description.contains("cannot list the folder") == true)
        #expect(missing?.description.contains("No such file or directory") == true)
    }

    @Test("a folder that is a file says so, rather than a generic error number")
    func folderIsAFile() throws {
        let folder = try TemporaryDirectory()
        try "SELECT 1;".write(toFile: folder.file("0001_one.sql"), atomically: true, encoding: .utf8)
        var migrator = DatabaseMigrator<NoDriver>()
        let error = #expect(throws: MigrationError.self) {
            try migrator.registerMigrations(inDirectory: folder.file("0001_one.sql"))
        }
        #expect(error?.description.contains("cannot list the folder: Not a directory") == true)
    }
}
