import CCivetWeb
import Foundation

/// Gives the server's freed memory back to the system every few seconds (glibc's `malloc_trim`).
///
/// A live session allocates and frees tens of megabytes per update (encoder activations, the decoder's caches), and a
/// closed session frees its kept encode. glibc keeps such chunks in its heaps for reuse, and a heap only shrinks from
/// its top, so without this a server's resident memory grew with every round of sessions. Giving each large chunk its
/// own mapping (`M_MMAP_THRESHOLD`) kept it flat too but costs page faults on every update; trimming every few
/// seconds costs a fault per page once per period, for the chunks freed since (docs/benchmarks.md, 2026-12-07).
final class MemoryTrimmer: @unchecked Sendable {
    /// Seconds between trims.
    static let period = 5

    private let lock = NSLock()
    private var timer: DispatchSourceTimer?

    /// Starts trimming (again after `stop`); does nothing while it trims.
    func start() {
        lock.withLock {
            guard timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "aural.serve.memory-trimmer"))
            timer.schedule(deadline: .now() + .seconds(Self.period), repeating: .seconds(Self.period), leeway: .seconds(1))
            timer.setEventHandler { _ = malloc_trim(0) }
            timer.resume()
            self.timer = timer
        }
    }

    /// Stops trimming.
    func stop() {
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
    }

    deinit { timer?.cancel() }
}
