import Foundation
import Synchronization

/// The engine's threads for data-parallel work: the calling thread plus one worker per other core, which wait for the
/// next job by spinning briefly and then sleep.
///
/// A decoder step hands out dozens of small products, each worth tens of microseconds. Waking a sleeping thread for
/// each (Dispatch's `concurrentPerform`) costs about as much as the work, and OpenBLAS's own threads, which spin with
/// `sched_yield` after every product, take cores from everything else. So OpenBLAS runs single-threaded and every
/// parallel part of the engine, the encoder's large products included, goes through this pool.
///
/// One job runs at a time: a caller that finds the pool busy (another transcription, or a job inside a job) runs all
/// of its parts itself, so concurrent transcriptions never wait for each other or oversubscribe the cores. Workers are
/// plain threads, never Swift's cooperative pool.
///
/// Kernels reach the pool through `WorkerPool.current`: the pool and thread cap of the `ComputeContext` job running on
/// the calling thread, or the shared pool with no cap outside any job.
final class WorkerPool: @unchecked Sendable {
    /// The default pool: one worker per available core (`AvailableCores`) beyond the caller's.
    static let shared = WorkerPool(workers: max(0, AvailableCores.count - 1))

    /// The pool of the job running on this thread (see `ComputeContext.run`), else `shared`.
    static var current: WorkerPool { JobSettings.current?.pool ?? shared }

    /// Spins (a few microseconds) before a worker sleeps until the next job. Spinning longer, with yields, burned the
    /// idle core between the jobs of a live session, which has idle time after every update: `scripts/live-bench` on
    /// two_cities.wav went from 105 % to 84 % of a core with this limit instead of 100,000 spins, at the same
    /// latency, and `aural transcribe` took the same time (docs/streaming.md).
    private static let spinLimit = 2_000

    private let workers: Int
    private let busy = Atomic<Bool>(false)
    /// Bumped to publish a job; workers run each generation once.
    private let generation = Atomic<Int>(0)
    private let nextPart = Atomic<Int>(0)
    /// Workers that have not yet finished the current generation.
    private let pendingWorkers = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    private let wake = NSCondition()

    // The current job, written by the caller before it bumps `generation` and read by workers after they see it.
    private var body: ((Int) -> Void)?
    private var parts = 0
    private var participants = 0

    init(workers: Int) {
        self.workers = workers
        for index in 0..<workers {
            let thread = Thread { [unowned self] in self.workerLoop(number: index + 1) }
            thread.name = "AuralWhisper worker \(index + 1)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// The pool's threads, the caller's included.
    var poolSize: Int { workers + 1 }

    /// Threads that take part in a job started on this thread, the caller included: the pool's size, capped by the
    /// thread count of the `ComputeContext` job running here (1 runs everything on the caller).
    var threads: Int {
        let size = workers + 1
        guard let cap = JobSettings.current?.threads else { return size }
        return min(max(1, cap), size)
    }

    /// Calls `body(part)` for every part in 0..<parts, on the caller and the workers, and returns when all are done.
    func run(parts: Int, _ body: (Int) -> Void) {
        let participants = min(parts, threads)
        guard participants > 1, busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            for part in 0..<parts { body(part) }
            return
        }
        withoutActuallyEscaping(body) { body in
            self.body = body
            self.parts = parts
            self.participants = participants
            nextPart.store(0, ordering: .relaxed)
            pendingWorkers.store(workers, ordering: .relaxed)
            generation.add(1, ordering: .sequentiallyConsistent)
            if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                wake.lock()
                wake.broadcast()
                wake.unlock()
            }
            takeParts()
            // Every worker checks in, with or without parts, before the job's closure goes out of scope.
            var spins = 0
            while pendingWorkers.load(ordering: .acquiring) > 0 {
                spins += 1
                if spins > 20_000 { sched_yield() }  // a worker lost its core: let it run
            }
            self.body = nil
        }
        busy.store(false, ordering: .releasing)
    }

    /// Takes parts of the current job until none are left.
    private func takeParts() {
        guard let body else { return }
        while true {
            let part = nextPart.wrappingAdd(1, ordering: .relaxed).oldValue
            if part >= parts { return }
            body(part)
        }
    }

    /// Worker `number` (1...workers) runs each published job once.
    private func workerLoop(number: Int) {
        var seen = 0
        while true {
            var spins = 0
            var current = generation.load(ordering: .acquiring)
            while current == seen {
                spins += 1
                if spins >= Self.spinLimit {
                    wake.lock()
                    sleepers.add(1, ordering: .sequentiallyConsistent)
                    while generation.load(ordering: .sequentiallyConsistent) == seen { wake.wait() }
                    sleepers.subtract(1, ordering: .sequentiallyConsistent)
                    wake.unlock()
                    spins = 0
                }
                current = generation.load(ordering: .acquiring)
            }
            seen = current
            // Workers beyond the job's participant count only check in.
            if number < participants { takeParts() }
            pendingWorkers.subtract(1, ordering: .releasing)
        }
    }
}
