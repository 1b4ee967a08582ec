import Glibc
import Locking

/// A pipe whose only job is to wake up a thread blocked in `poll` so a read can be cancelled.
///
/// Both ends are closed under the same lock that guards writing the wake-up byte, so a
/// late cancellation can never write into a descriptor number that was closed and reused.
final class WakeUpPipe: Sendable {
    private struct Ends {
        var readEnd: Int32
        var writeEnd: Int32
        var isClosed = false
    }

    /// The end to poll; valid until ``close()``.
    let readEnd: Int32
    private let ends: Lock<Ends>

    init() throws(TerminalPresenterError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw .cannotCreateWakeUpPipe(errno: errno)
        }
        for descriptor in descriptors {
            // Not inherited by child processes, and a wake-up write never blocks the canceller.
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        readEnd = descriptors[0]
        ends = Lock(Ends(readEnd: descriptors[0], writeEnd: descriptors[1]))
    }

    deinit {
        close()
    }

    func wake() {
        ends.withLock { ends in
            guard !ends.isClosed else { return }
            var byte: UInt8 = 1
            // A full pipe already means "wake up", so a failed write loses nothing.
            _ = Glibc.write(ends.writeEnd, &byte, 1)
        }
    }

    func close() {
        ends.withLock { ends in
            guard !ends.isClosed else { return }
            ends.isClosed = true
            _ = Glibc.close(ends.readEnd)
            _ = Glibc.close(ends.writeEnd)
        }
    }
}
