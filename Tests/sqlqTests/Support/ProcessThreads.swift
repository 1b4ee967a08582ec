import Dispatch
import Foundation
import Locking
import Testing

/// Runs each test of a suite on ``ProcessThreads`` rather than on Swift's concurrency pool.
///
/// Most of sqlq's tests wait for an `sqlq` process synchronously. On the concurrency pool, which
/// has one thread per core, two such tests hold every thread of the test process for as long as
/// their processes run, and the other modules' tests, started at the same moment, wait: their
/// time limits ran out after two minutes of waiting on a two-core machine.
struct OnProcessThreads: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(ProcessThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnProcessThreads {
    /// Runs the suite's tests on threads of their own, which waiting for a process may block.
    static var onProcessThreads: Self { OnProcessThreads() }
}

/// A few threads of their own that run the jobs of tests which block while a process runs:
/// as many as the machine has cores, twice, so that processes and their waiting tests overlap,
/// and no more, so that the processes do not crowd out the tests beside them.
final class ProcessThreads: TaskExecutor {
    static let shared = ProcessThreads(count: 2 * ProcessInfo.processInfo.activeProcessorCount)

    private let jobs = Lock<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)

    private init(count: Int) {
        for _ in 0..<count {
            let thread = Thread { [self] in run() }
            thread.name = "sqlq tests: processes"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    private func run() -> Never {
        let executor = asUnownedTaskExecutor()
        while true {
            available.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: executor)
        }
    }
}
