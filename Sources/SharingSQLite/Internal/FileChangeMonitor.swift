import Foundation
import Synchronization

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
final class FileChangeMonitor: Sendable {
    private let isStopped = Atomic<Bool>(false)

    /// Starts watching. `onStart` runs first on the monitor's thread, then `onChange` after each
    /// wake-up, until ``stop()``.
    init(
        path: String, interval: Duration = .milliseconds(250),
        onStart: @escaping @Sendable () -> Void, onChange: @escaping @Sendable () -> Void
    ) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let watched: Set<String> = [name, name + "-wal", name + "-journal"]
        let timeout = Int32(
            clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        let thread = Thread { [self] in
            onStart()
            self.run(directory: directory, watched: watched, timeout: timeout, onChange: onChange)
        }
        thread.name = "SharingSQLite.FileChangeMonitor"
        thread.start()
    }

    /// Stops the thread at its next wake-up, at most one interval from now.
    func stop() {
        isStopped.store(true, ordering: .relaxed)
    }

    private func run(directory: String, watched: Set<String>, timeout: Int32, onChange: @Sendable () -> Void) {
        #if os(Linux)
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            if descriptor >= 0 {
                let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
                if inotify_add_watch(descriptor, directory, mask) < 0 {
                    close(descriptor)
                    return pollOnly(timeout: timeout, onChange: onChange)
                }
            } else {
                return pollOnly(timeout: timeout, onChange: onChange)
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
                    onChange()
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
                    onChange()
                    followUps = 0
                }
            }
        #else
            pollOnly(timeout: timeout, onChange: onChange)
        #endif
    }

    private func pollOnly(timeout: Int32, onChange: @Sendable () -> Void) {
        while !isStopped.load(ordering: .relaxed) {
            usleep(useconds_t(max(timeout, 1)) * 1000)
            if isStopped.load(ordering: .relaxed) { return }
            onChange()
        }
    }
}
