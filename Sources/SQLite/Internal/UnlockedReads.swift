import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a rollback-journal database without SQLite's shared lock, so that the reader is never
/// the reason another program's write fails (see ``Database/Configuration/readsWithoutLocks``).
///
/// In a rollback-journal database a writer commits only once every reader is gone; one without
/// a busy timeout (the `sqlite3` shell) fails at once with "database is locked" while any read
/// holds its shared lock. So reads go through a connection opened with `nolock=1`, which takes
/// no lock, and each read is kept only when it could not have seen a write in progress:
///
/// 1. no writer held the pending or exclusive lock when it began (a writer writes the file only
///    under those), and
/// 2. when it ended, none held them and the file had not been written since it began
///    (``FileWriteWatch/version``).
///
/// Otherwise the read is done again, once the writer is gone, after the connection forgets the
/// pages and the schema it read meanwhile, which may mix two states of the file. A writer can
/// hold the lock at most the busy timeout before a read gives up with `SQLITE_BUSY`, as a
/// locking read would.
///
/// A database in WAL mode is read through the locking connection: its readers never keep a
/// writer from committing, and one without the shared lock could miss the log being deleted by
/// the last connection to close (which checks that it is the last through that lock).
final class UnlockedReads {
    /// Opened anew when the file changes journal mode, because a connection that once read the
    /// file in WAL mode keeps the log's index it mapped then.
    private var database: Database
    private let locking: Database
    private let watch: FileWriteWatch

    /// Opens the file of `locking`, a locking connection, once more, without locks.
    init(_ locking: Database) throws {
        self.locking = locking
        watch = try FileWriteWatch.acquire(path: locking.path)
        do {
            database = try Self.open(locking)
        } catch {
            watch.release()
            throw error
        }
    }

    private static func open(_ locking: Database) throws -> Database {
        try Database(path: locking.path, configuration: locking.configuration, withoutLocks: true)
    }

    deinit { watch.release() }

    /// Runs `body` in a read transaction of a state of the file that no writer was changing;
    /// in WAL mode on the locking connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: locking.configuration.busyTimeout)
        var pause = Duration.microseconds(100)
        while true {
            let mode = journalMode
            if mode == .wal { return try DatabaseQueue.readOnly(locking, body) }
            let before = watch.version
            if !watch.isBeingWritten {
                let outcome = Result { try DatabaseQueue.readOnly(database, body) }
                let modeAfter = journalMode
                if !watch.isBeingWritten, watch.version == before, modeAfter == mode { return try outcome.get() }
                if modeAfter == mode {
                    database.forgetWhatWasRead()
                } else {
                    database = try Self.open(locking)
                }
            }
            guard clock.now < deadline else {
                throw SQLiteError(
                    code: SQLITE_BUSY,
                    message: "database is locked: another process kept writing it for longer than the busy timeout",
                    path: database.path)
            }
            var time = timespec(tv_sec: 0, tv_nsec: Int(pause.components.attoseconds / 1_000_000_000))
            nanosleep(&time, nil)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    private enum JournalMode { case rollback, wal }

    /// What the file's header says now: bytes 18 and 19 are 2 in WAL mode. A file too short
    /// to have a header (a new, empty database) is read as a rollback-journal one.
    private var journalMode: JournalMode {
        var versions: (UInt8, UInt8) = (0, 0)
        let count = withUnsafeMutableBytes(of: &versions) { pread(watch.descriptor, $0.baseAddress, 2, 18) }
        return count == 2 && versions == (2, 2) ? .wal : .rollback
    }
}
