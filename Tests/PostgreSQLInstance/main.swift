import Foundation
import PostgreSQL
import SQLite
import SharingSQLite

// One instance of a service, for the tests that run two: it holds a live value read from
// PostgreSQL and prints each of its values, and it writes what its standard input asks.
//
// Usage: PostgreSQLInstance SOCKET_DIRECTORY PORT DATABASE
//   prints     values A,B,…        each value of the live list of note bodies, in id order
//   reads      insert BODY         inserts a note; prints "inserted BODY" once committed
//   exits 0 at the end of its input.
//
// With `differential` first, it runs the mode of Differential.swift instead.

struct NoteBodies: FetchKeyRequest {
    func fetch(_ db: any SQLConnection) throws -> [String] {
        try Table("notes").select(Column("body")).sort(Column("id")).asRequest(of: String.self).fetchAll(db)
    }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "differential" {
    exit(await Differential.main(Array(CommandLine.arguments.dropFirst(2))))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: PostgreSQLInstance SOCKET_DIRECTORY PORT DATABASE\n".utf8))
    exit(2)
}
let db = try await PostgreSQLDatabase(
    .init(address: .unixSocket(directory: arguments[1], port: port), user: "postgres", database: arguments[3]))
let bodies = SharedReader(.fetch(NoteBodies(), database: db))
try await bodies.load()
let printer = Task {
    for await value in bodies.values { say("values " + value.joined(separator: ",")) }
}
// Standard input is read on a thread of its own: a blocking read must not hold a task's thread.
let lines = AsyncStream<String> { continuation in
    Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }
}
for await line in lines {
    guard line.hasPrefix("insert ") else {
        FileHandle.standardError.write(Data("unknown command: \(line)\n".utf8))
        exit(2)
    }
    let body = String(line.dropFirst("insert ".count))
    try await db.execute("INSERT INTO notes(body) VALUES ($1)", [.text(body)])
    say("inserted " + body)
}
printer.cancel()
await db.close()
