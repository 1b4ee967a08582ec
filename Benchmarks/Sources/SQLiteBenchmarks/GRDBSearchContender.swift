import GRDB

/// GRDB 7: the same SQL as the raw contender, through a cached statement, into records decoded
/// by index, GRDB's fastest.
struct GRDBSearchContender: SearchContender {
    struct Note: FetchableRecord {
        var id: Int64, title: String, body: String
        init(row: Row) throws {
            id = row[0]
            title = row[1]
            body = row[2]
        }
    }

    let name = "GRDB FetchableRecord"
    private let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
    }

    func run(_ query: SearchQuery) throws -> (milliseconds: Double, digest: SearchDigest) {
        var notes: [Note] = []
        let time = try milliseconds {
            notes = try queue.inDatabase { db in
                var arguments: StatementArguments = [query.rawPattern]
                if let limit = query.limit { arguments += [limit] }
                return try Note.fetchAll(db.cachedStatement(sql: query.sql), arguments: arguments)
            }
        }
        var digest = SearchDigest()
        for note in notes { digest.add(id: note.id, title: note.title, body: note.body) }
        return (time, digest)
    }
}
