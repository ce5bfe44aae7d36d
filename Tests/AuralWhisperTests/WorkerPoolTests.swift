import Foundation
import Synchronization
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("WorkerPool", .heavyWork)
struct WorkerPoolTests {
    @Test("the suite's tests run on the heavy-work lane, at its lower priority, not on Swift's cooperative pool")
    func runsOnTheLane() async throws {
        #expect(HeavyWorkLane.shared.isCurrentThread)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 10)
        try await Task.sleep(for: .milliseconds(10))
        #expect(HeavyWorkLane.shared.isCurrentThread, "after an await too")
    }

    @Test("every part runs exactly once, however many parts", arguments: [1, 2, 3, 17, 1_000])
    func everyPartOnce(parts: Int) {
        let counts = Mutex([Int](repeating: 0, count: parts))
        for _ in 0..<50 {
            WorkerPool.shared.run(parts: parts) { part in counts.withLock { $0[part] += 1 } }
        }
        #expect(counts.withLock { $0 } == [Int](repeating: 50, count: parts))
    }

    @Test("a job inside a job, and jobs from several threads at once, all finish")
    func nestedAndConcurrent() async {
        let total = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread {
                            for _ in 0..<200 {
                                WorkerPool.shared.run(parts: 2) { _ in
                                    WorkerPool.shared.run(parts: 3) { _ in total.increment() }
                                }
                            }
                            done.resume()
                        }.start()
                    }
                }
            }
        }
        #expect(total.value == 4 * 200 * 2 * 3)
    }

    /// Exact equality is the contract, not luck: `BLAS.gemm` cuts rows at multiples of 48, a whole number of
    /// OpenBLAS's register tiles in both its SkylakeX (16-row) and Haswell/Zen (24-row) sgemm kernels, so every row
    /// goes through the same kernel, summing in the same order, as in the unsplit product. Cuts at multiples of 16
    /// failed this on the Haswell kernel (AMD EPYC, or `AURALKIT_CPU_LEVEL=avx2` here). Products with B transposed
    /// (every linear layer); m·n·k above the split threshold (2^21) and m of at least two cuts.
    @Test("products split across the pool equal single-threaded ones",
          arguments: [(300, 70, 128), (1_500, 384, 384), (449, 1_536, 384)])
    func splitProduct(m: Int, n: Int, k: Int) {
        let a = (0..<(m * k)).map { Float(sin(Double($0))) }
        let b = (0..<(n * k)).map { Float(cos(Double($0) * 0.7)) }
        var pooled = [Float](repeating: 0, count: m * n)
        var single = pooled
        pooled.withUnsafeMutableBufferPointer { c in
            BLAS.gemm(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, transposeB: true, c: c.baseAddress!, ldc: n)
        }
        ComputeContext(threads: 1).run {
            single.withUnsafeMutableBufferPointer { c in
                BLAS.gemm(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, transposeB: true, c: c.baseAddress!, ldc: n)
            }
        }
        #expect(pooled == single)
        #expect(pooled[m * n - 1] != 0)
    }
}

@Suite("ComputeContext", .heavyWork)
struct ComputeContextTests {
    @Test("a context's thread count caps its own jobs only, and never resizes the pool")
    func perJobCap() {
        let size = WorkerPool.shared.poolSize
        #expect(WorkerPool.current.threads == size)
        ComputeContext(threads: 1).run {
            #expect(WorkerPool.current.threads == 1)
            ComputeContext(threads: 64).run { #expect(WorkerPool.current.threads == size) }
            #expect(WorkerPool.current.threads == 1)
        }
        #expect(WorkerPool.current.threads == size)
        // Another thread's job keeps its own cap while this thread runs with another.
        let seen = Mutex<Int?>(nil)
        let other = Thread {
            ComputeContext(threads: 1).run {
                Thread.sleep(forTimeInterval: 0.05)
                seen.withLock { $0 = WorkerPool.current.threads }
            }
        }
        other.start()
        ComputeContext.shared.run {
            Thread.sleep(forTimeInterval: 0.1)
            #expect(WorkerPool.current.threads == size)
        }
        while seen.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.01) }
        #expect(seen.withLock { $0 } == 1)
    }

    @Test("a one-thread transcription gives the same segments as one on every core")
    func oneThreadTranscription() throws {
        let model = try Fixtures.model("tiny.en")
        let samples = Array(try Fixtures.samples("beckett.wav").prefix(160_000))
        let options = DecodingOptions(beamSize: 1)
        let wide = try Transcriber(model: model).transcribe(samples, options: options).segments
        let narrow = try Transcriber(model: model, threads: 1).transcribe(samples, options: options).segments
        #expect(narrow.map(\.text) == wide.map(\.text))
        #expect(!wide.isEmpty)
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
