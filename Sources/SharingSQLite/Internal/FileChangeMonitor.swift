import Locking
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Watches a database file for changes made by anyone, on a thread of its own.
///
/// On Linux, inotify on the file's directory wakes the thread when the file, its `-wal` or its
/// `-journal` changes (watching the directory catches those files being created and deleted).
/// The thread also wakes every `interval`, because not every change reaches inotify (network
/// file systems, or a platform without it), and `onChange` is cheap: it reads
/// `PRAGMA data_version`.
///
/// A writer's last write to the files (its WAL frames) comes before it publishes the commit in
/// the shared-memory index, which inotify does not see: a check made at once on the event can
/// miss the very commit the event announces. So each event on the `-wal` is followed by a few
/// quick checks, 1, 4, 16 and 64 ms later, and the slow poll stays a fallback.
///
/// In a rollback-journal database a check must never hold its shared lock when a writer wants
/// to commit: the writer needs every reader gone, and one without a busy timeout (the `sqlite3`
/// shell) fails at once with "database is locked". A writer holds its journal, with something in
/// it, from its first change until its commit is done, so no check reads while the `-journal`
/// holds anything: the journal's creation is ignored, and its deletion or truncation (the commit
/// done) is what wakes the check. A journal left unchanged for a whole interval (a hot journal
/// left by a crash, or `PERSIST` mode's, which stays) no longer holds checks back, so such a
/// database is read at least every other interval.
///
/// `data_version` cannot tell that the file itself went away: a connection keeps reading the
/// file it opened, deleted or not. So each check first compares the device and inode the path
/// names with those it named when watching started, and reports a file deleted or replaced
/// (`mv other.db app.db`) to `onMove`, once, after which the thread ends.
final class FileChangeMonitor: Sendable {
    /// What became of the watched file.
    enum Move: Sendable, Equatable {
        /// The path names no file any more.
        case deleted
        /// The path names another file.
        case replaced
    }

    private let isStopped = Atomic<Bool>(false)

    /// Starts watching. `onStart` runs first on the monitor's thread, then `onChange` after each
    /// wake-up, until ``stop()`` or until the file is deleted or replaced, which `onMove` hears.
    /// The file is the one the path names now.
    init(
        path: String, interval: Duration = .milliseconds(250),
        onStart: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void,
        onMove: @escaping @Sendable (Move) -> Void
    ) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let names = WatchedNames(database: name)
        let journalPath = url.path + "-journal"
        let timeout = Int32(
            clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        // Before this returns, so that a move right after is seen as one.
        let checker = Checker(path: url.path, onChange: onChange, onMove: onMove)
        // Without a thread (the process has too many), other processes' commits go unseen, as
        // they did when Foundation's `Thread` failed to start; the connection's own still notify.
        try? DetachedThread.start(named: "SharingSQLite.FileChangeMonitor") { [self] in
            onStart()
            self.run(
                directory: directory, names: names, journalPath: journalPath, timeout: timeout, checker: checker)
        }
    }

    /// Stops the thread at its next wake-up, at most one interval from now.
    func stop() {
        isStopped.store(true, ordering: .relaxed)
    }

    /// What a path names: a file, known by its device and inode, or nothing.
    enum PathState: Equatable {
        case file(device: UInt64, inode: UInt64)
        case missing
        /// `stat` failed otherwise (a directory that cannot be searched): nothing is known.
        case unknown

        init(of path: String) {
            var status = stat()
            if stat(path, &status) == 0 {
                self = .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
            } else {
                self = errno == ENOENT || errno == ENOTDIR ? .missing : .unknown
            }
        }
    }

    /// The names of the files next to the database that tell of its changes.
    struct WatchedNames {
        let database: String
        var wal: String { database + "-wal" }
        var journal: String { database + "-journal" }

        func contains(_ name: String) -> Bool { name == database || name == wal || name == journal }
    }

    /// What the rollback journal tells of a writer.
    enum JournalState: Equatable {
        /// No journal, or an empty one (`TRUNCATE` mode's between transactions): no writer is
        /// in a transaction, or it has not written yet.
        case idle
        /// A journal with something in it, by its size and last change: a writer in its
        /// transaction or commit, a hot journal, or a `PERSIST` journal.
        case active(size: Int64, seconds: Int, nanoseconds: Int)

        init(of path: String) {
            var status = stat()
            guard stat(path, &status) == 0, status.st_size > 0 else {
                self = .idle
                return
            }
            #if os(Linux)
                let time = status.st_mtim
            #else
                let time = status.st_mtimespec
            #endif
            self = .active(size: Int64(status.st_size), seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec))
        }
    }

    /// One check of the file, on the monitor's thread.
    private struct Checker {
        let path: String
        let onChange: @Sendable () -> Void
        let onMove: @Sendable (Move) -> Void
        /// The file the path named when watching started, taken to be the one the connection
        /// opened. A path that named no file then (a `file:` URI, say) tells nothing, and moves
        /// go unwatched.
        let original: PathState

        init(path: String, onChange: @escaping @Sendable () -> Void, onMove: @escaping @Sendable (Move) -> Void) {
            self.path = path
            self.onChange = onChange
            self.onMove = onMove
            let original = PathState(of: path)
            self.original = original == .missing ? .unknown : original
        }

        /// Calls `onChange` (when `read`) if the path still names the original file, else
        /// `onMove`. A missing file is only reported when `final`: a program that replaces the
        /// file by deleting it and writing a new one leaves it missing for a moment. Returns
        /// false once `onMove` ran.
        func check(final: Bool, read: Bool = true) -> Bool {
            let now = PathState(of: path)
            if now == .unknown || original == .unknown || now == original {
                if read { onChange() }
                return true
            }
            if now == .missing {
                guard final else { return true }
                onMove(.deleted)
                return false
            }
            onMove(.replaced)
            return false
        }
    }

    private func run(directory: String, names: WatchedNames, journalPath: String, timeout: Int32, checker: Checker) {
        #if os(Linux)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor >= 0 {
                // Not IN_CLOSE_WRITE: a writer closes the file after its commit, whose own event
                // came first, and a read then could meet the next writer's commit.
                let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                if inotify_add_watch(descriptor, directory, mask) < 0 {
                    close(descriptor)
                    return pollOnly(timeout: timeout, journalPath: journalPath, checker: checker)
                }
            } else {
                return pollOnly(timeout: timeout, journalPath: journalPath, checker: checker)
            }
            defer { close(descriptor) }
            let bufferSize = 4096
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
            defer { buffer.deallocate() }
            let followUpDelays: [Int32] = [1, 4, 16, 64]
            var followUps = followUpDelays.count
            var slowPoll = SlowPoll(journalPath: journalPath)
            while !isStopped.load(ordering: .relaxed) {
                var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(
                    &pollDescriptor, 1, followUps < followUpDelays.count ? followUpDelays[followUps] : timeout)
                if isStopped.load(ordering: .relaxed) { return }
                guard ready > 0 else {
                    // A follow-up check, or the fallback (a timeout, or an interrupted poll).
                    let read =
                        followUps < followUpDelays.count ? JournalState(of: journalPath) == .idle : slowPoll.mayRead()
                    guard checker.check(final: followUps >= followUpDelays.count - 1, read: read) else { return }
                    followUps = min(followUps + 1, followUpDelays.count)
                    continue
                }
                var relevant = false
                var followUp = false
                while true {
                    let count = read(descriptor, buffer, bufferSize)
                    guard count > 0 else { break }
                    var offset = 0
                    while offset + MemoryLayout<inotify_event>.size <= count {
                        let event = (buffer + offset).loadUnaligned(as: inotify_event.self)
                        let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                        if event.len > 0 {
                            let name = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
                            // A journal created is a writer starting: its commit, which removes
                            // or empties the journal, is the event to read on.
                            if names.contains(name), !(name == names.journal && event.mask & UInt32(IN_CREATE) != 0) {
                                relevant = true
                                // WAL frames come before their commit is published; a file
                                // deleted or moved may be replaced a moment later.
                                if name == names.wal || (name == names.database && event.mask & UInt32(IN_MODIFY) == 0)
                                {
                                    followUp = true
                                }
                            }
                        }
                        offset += MemoryLayout<inotify_event>.size + Int(event.len)
                    }
                }
                if relevant {
                    guard checker.check(final: false, read: JournalState(of: journalPath) == .idle) else { return }
                    if followUp { followUps = 0 }
                }
            }
        #else
            pollOnly(timeout: timeout, journalPath: journalPath, checker: checker)
        #endif
    }

    /// Whether the slow poll reads: not while a writer's journal holds something, unless the
    /// journal has not changed since the last poll, which no committing writer leaves it.
    private struct SlowPoll {
        let journalPath: String
        private var lastActive: JournalState?

        init(journalPath: String) {
            self.journalPath = journalPath
        }

        mutating func mayRead() -> Bool {
            let journal = JournalState(of: journalPath)
            defer { lastActive = journal == .idle ? nil : journal }
            return journal == .idle || journal == lastActive
        }
    }

    private func pollOnly(timeout: Int32, journalPath: String, checker: Checker) {
        var slowPoll = SlowPoll(journalPath: journalPath)
        while !isStopped.load(ordering: .relaxed) {
            usleep(useconds_t(max(timeout, 1)) * 1000)
            if isStopped.load(ordering: .relaxed) { return }
            guard checker.check(final: true, read: slowPoll.mayRead()) else { return }
        }
    }
}
