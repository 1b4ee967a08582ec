import CSQLite
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// What a reader that takes no lock needs to know of a database file: whether a writer holds
/// the lock it writes the file under, and whether anyone wrote the file since a moment before.
///
/// SQLite's unix locks are POSIX record locks on bytes past 1 GiB: a writer about to write the
/// file holds a write lock on the pending byte, then on the 510 bytes of the shared range
/// (SQLite's `PENDING_BYTE` and `SHARED_FIRST`). Asking with `F_OFD_GETLK` whether a read lock
/// there would conflict tells whether a writer is writing, without taking anything.
///
/// Writes are counted through inotify's `IN_MODIFY`, which the kernel queues within every
/// `write` before the writer can release its lock. On a file system without inotify (or when
/// the process may open no more instances) the file's size and change times stand in.
final class FileWriteWatch: Sendable {
    private struct Key: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    private struct Registry {
        var watches: [Key: FileWriteWatch] = [:]
        var users: [Key: Int] = [:]
        var byDescriptor: [Int32: FileWriteWatch] = [:]
        /// -1 when inotify is unavailable.
        var notifications: Int32 = -2
    }

    /// One per file for the whole process: a watch is shared by every reader of its file, and
    /// inotify instances are few (128 per user by default).
    private static let registry = Lock(Registry())

    private let key: Key
    /// A descriptor of the file, opened read-only. Closing a descriptor drops every POSIX lock
    /// the process holds on the file, even through other descriptors, such as another SQLite
    /// connection's: so it stays open while the file has a name (see ``release()``).
    let descriptor: Int32
    private let watchDescriptor: Int32
    private let writes = Lock<UInt64>(0)

    private init(key: Key, descriptor: Int32, watchDescriptor: Int32) {
        self.key = key
        self.descriptor = descriptor
        self.watchDescriptor = watchDescriptor
    }

    /// The watch of the file `path` names now, shared with the process's other readers of it.
    /// Each call is matched by a ``release()``.
    static func acquire(path: String) throws(SQLiteError) -> FileWriteWatch {
        try registry.withLock { registry throws(SQLiteError) in
            var status = stat()
            // The file is looked up before it is opened: opening a second descriptor and
            // closing it would drop the locks of the process's other connections.
            if stat(path, &status) == 0, let watch = registry.watches[Key(status)] {
                registry.users[watch.key, default: 0] += 1
                return watch
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0, fstat(descriptor, &status) == 0 else {
                throw SQLiteError(
                    code: SQLITE_CANTOPEN, message: "cannot open \"\(path)\" to watch its locks: errno \(errno)",
                    path: path)
            }
            let key = Key(status)
            if let watch = registry.watches[key] {
                // Replaced between the two looks: the new descriptor is kept, as every one is.
                registry.users[key, default: 0] += 1
                _ = descriptor
                return watch
            }
            if registry.notifications == -2 { registry.notifications = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
            var watchDescriptor: Int32 = -1
            if registry.notifications >= 0 {
                // Through the descriptor's own name, so that the watch is on the very file opened.
                watchDescriptor = inotify_add_watch(
                    registry.notifications, "/proc/self/fd/\(descriptor)", UInt32(IN_MODIFY))
            }
            let watch = FileWriteWatch(key: key, descriptor: descriptor, watchDescriptor: watchDescriptor)
            registry.watches[key] = watch
            registry.users[key] = 1
            if watchDescriptor >= 0 { registry.byDescriptor[watchDescriptor] = watch }
            return watch
        }
    }

    /// Ends one ``acquire(path:)``. The last reader of a file that no longer has a name (deleted,
    /// or replaced by another) closes its descriptor: nobody can open that file any more, so no
    /// lock of it can matter to another process. A file that still has a name keeps its
    /// descriptor for the process's life, one per file.
    func release() {
        Self.registry.withLock { registry in
            registry.users[key, default: 1] -= 1
            guard registry.users[key] == 0 else { return }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_nlink == 0 else { return }
            registry.users[key] = nil
            registry.watches[key] = nil
            if watchDescriptor >= 0 {
                registry.byDescriptor[watchDescriptor] = nil
                inotify_rm_watch(registry.notifications, watchDescriptor)
            }
            close(descriptor)
        }
    }

    /// Whether another process holds SQLite's pending or exclusive lock on the file, which a
    /// writer holds while it may write the file's pages.
    var isBeingWritten: Bool {
        Self.isWriteLocked(descriptor, start: 0x4000_0000, length: 1)
            || Self.isWriteLocked(descriptor, start: 0x4000_0002, length: 510)
    }

    private static func isWriteLocked(_ descriptor: Int32, start: Int, length: Int) -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_RDLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = start
        lock.l_len = length
        // `F_OFD_GETLK` (Linux 3.15): its locks belong to the descriptor, not the process, so
        // the process's own connections' locks are reported too.
        guard fcntl(descriptor, 36, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A value that differs from an earlier one when the file was written in between.
    var version: Version {
        var status = stat()
        fstat(descriptor, &status)
        let written: UInt64
        if watchDescriptor >= 0 {
            Self.registry.withLock { registry in Self.drain(&registry) }
            written = writes.withLock { $0 }
        } else {
            written = 0
        }
        return Version(
            writes: written, size: Int64(status.st_size), modified: status.st_mtim.tv_sec,
            modifiedNanoseconds: status.st_mtim.tv_nsec, changed: status.st_ctim.tv_sec,
            changedNanoseconds: status.st_ctim.tv_nsec)
    }

    /// What ``version`` compares.
    struct Version: Equatable {
        var writes: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanoseconds: Int
        var changed: Int
        var changedNanoseconds: Int
    }

    /// Reads every queued event, counting each file's writes; an overflowed queue counts a write
    /// of every file.
    private static func drain(_ registry: inout Registry) {
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(registry.notifications, buffer, size)
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    for watch in registry.watches.values { watch.writes.withLock { $0 &+= 1 } }
                } else if let watch = registry.byDescriptor[event.wd] {
                    watch.writes.withLock { $0 &+= 1 }
                }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
    }
}
