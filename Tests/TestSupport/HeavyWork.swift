import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs each test of a suite on `HeavyWorkLane`, off Swift's cooperative pool.
///
/// Swift Testing runs every test, synchronous ones too, on the cooperative pool, which has one thread per core (two
/// here). A test that runs a model over a recording or waits for a child process holds its thread for seconds, and
/// with two such tests the tests that wait on audio buffers, timers or a download's progress get no thread at all
/// until one ends. Suites of such tests take this trait; the tests that measure time then always have the pool.
///
/// ```swift
/// @Suite("Transcriber", .heavyWork)
/// struct TranscriberTests {
///     @Test func transcribes() throws { … }   // runs on a lane thread
/// }
/// ```
public struct HeavyWorkTrait: SuiteTrait, TestTrait, TestScoping {
    /// Every test of the suite, nested suites' too, runs on the lane.
    public var isRecursive: Bool { true }

    /// A scope for each test case; the suite itself is no work.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        _ = PoolStallWatch.started  // only with AURAL_STALL_DIR set
        try await HeavyWorkLane.shared.run(function)
    }
}

extension Trait where Self == HeavyWorkTrait {
    /// The tests run heavy synchronous work: each runs on `HeavyWorkLane`, not on Swift's cooperative pool.
    public static var heavyWork: Self { HeavyWorkTrait() }
}

/// A few threads, one per core, at a lower scheduling priority than the rest of the process, for the tests' heavy
/// synchronous work (see `HeavyWorkTrait`).
///
/// A test is admitted when a thread is free, and then runs on the lane from start to end, its awaits included, so at
/// most one test per core is under way at once, as when such tests held the cooperative pool; their time limits count
/// the wait for admission. The threads run at nice 10: a thread that wakes up to take an audio buffer or to answer a
/// timer (a test's, the sound server's) runs before them, rather than sharing a core with them.
public final class HeavyWorkLane: TaskExecutor, @unchecked Sendable {
    /// The process's lane.
    public static let shared = HeavyWorkLane(threads: max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// The lane's niceness (Linux: 0 is the default, 19 the lowest priority).
    static let niceness: Int32 = 10

    private let admission: AsyncSemaphore
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private let threadIDs = Mutex<[pthread_t]>([])

    private init(threads: Int) {
        admission = AsyncSemaphore(permits: threads)
        for index in 0..<threads {
            let thread = Thread { [unowned self] in
                threadIDs.withLock { $0.append(pthread_self()) }
                #if canImport(Glibc)
                // On Linux the nice value is a thread's own, and 0 names the calling thread.
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
                #endif
                run()
            }
            thread.name = "heavy test work \(index + 1)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Whether the calling thread is one of the lane's.
    public var isCurrentThread: Bool {
        let current = pthread_self()
        return threadIDs.withLock { $0.contains { pthread_equal($0, current) != 0 } }
    }

    /// Waits for a free thread, then runs `body` on the lane; cancelling the caller cancels `body`.
    public func run(_ body: @Sendable () async throws -> Void) async throws {
        try await admission.withPermit {
            try await withoutActuallyEscaping(body) { body in
                // `withTaskExecutorPreference` would leave a synchronous body on the calling thread; a task started
                // with the preference runs it here. Task-local values (the test's identity) carry over.
                let task = Task(executorPreference: self) { try await body() }
                try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A first-come, first-served counting semaphore for tasks: `withPermit` waits, without holding a thread, until one
/// of `permits` is free.
public actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A semaphore with `permits` permits (1: a lock).
    public init(permits: Int) {
        available = permits
    }

    /// Runs `body` holding a permit, and gives the permit back when it returns or throws.
    public nonisolated func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
