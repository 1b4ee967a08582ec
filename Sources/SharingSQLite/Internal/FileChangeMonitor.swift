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
/// miss the very commit the event announces. So each event is followed by a few quick checks,
/// 1, 4, 16 and 64 ms later, and the slow poll stays a fallback.
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
        let watched: Set<String> = [name, name + "-wal", name + "-journal"]
        let timeout = Int32(
            clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        // Before this returns, so that a move right after is seen as one.
        let checker = Checker(path: url.path, onChange: onChange, onMove: onMove)
        // Without a thread (the process has too many), other processes' commits go unseen, as
        // they did when Foundation's `Thread` failed to start; the connection's own still notify.
        try? DetachedThread.start(named: "SharingSQLite.FileChangeMonitor") { [self] in
            onStart()
            self.run(directory: directory, watched: watched, timeout: timeout, checker: checker)
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

        /// Calls `onChange` if the path still names the original file, else `onMove`. A missing
        /// file is only reported when `final`: a program that replaces the file by deleting it
        /// and writing a new one leaves it missing for a moment. Returns false once `onMove` ran.
        func check(final: Bool) -> Bool {
            let now = PathState(of: path)
            if now == .unknown || original == .unknown || now == original {
                onChange()
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

    private func run(directory: String, watched: Set<String>, timeout: Int32, checker: Checker) {
        #if os(Linux)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor >= 0 {
                let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)
                if inotify_add_watch(descriptor, directory, mask) < 0 {
                    close(descriptor)
                    return pollOnly(timeout: timeout, checker: checker)
                }
            } else {
                return pollOnly(timeout: timeout, checker: checker)
            }
            defer { close(descriptor) }
            let bufferSize = 4096
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
            defer { buffer.deallocate() }
            let followUpDelays: [Int32] = [1, 4, 16, 64]
            var followUps = followUpDelays.count
            while !isStopped.load(ordering: .relaxed) {
                var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(
                    &pollDescriptor, 1, followUps < followUpDelays.count ? followUpDelays[followUps] : timeout)
                if isStopped.load(ordering: .relaxed) { return }
                guard ready > 0 else {
                    // A follow-up check, or the fallback (a timeout, or an interrupted poll).
                    guard checker.check(final: followUps >= followUpDelays.count - 1) else { return }
                    followUps = min(followUps + 1, followUpDelays.count)
                    continue
                }
                var relevant = false
                while true {
                    let count = read(descriptor, buffer, bufferSize)
                    guard count > 0 else { break }
                    var offset = 0
                    while offset + MemoryLayout<inotify_event>.size <= count {
                        let event = (buffer + offset).loadUnaligned(as: inotify_event.self)
                        let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                        if event.len > 0 {
                            let name = String(cString: nameStart.assumingMemoryBound(to: CChar.self))
                            if watched.contains(name) { relevant = true }
                        }
                        offset += MemoryLayout<inotify_event>.size + Int(event.len)
                    }
                }
                if relevant {
                    guard checker.check(final: false) else { return }
                    followUps = 0
                }
            }
        #else
            pollOnly(timeout: timeout, checker: checker)
        #endif
    }

    private func pollOnly(timeout: Int32, checker: Checker) {
        while !isStopped.load(ordering: .relaxed) {
            usleep(useconds_t(max(timeout, 1)) * 1000)
            if isStopped.load(ordering: .relaxed) { return }
            guard checker.check(final: true) else { return }
        }
    }
}
