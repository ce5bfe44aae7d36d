import CCivetWeb
import Foundation

/// Gives the server's freed memory back to the system every few seconds (glibc's `malloc_trim`).
///
/// A live session allocates and frees tens of megabytes per update (encoder activations, the decoder's caches), and a
/// closed session frees its kept encode. glibc keeps such chunks in its heaps for reuse, and a heap only shrinks from
/// its top, so a server's resident memory grew with every round of sessions: 400 → 603 MiB over six rounds of four
/// sessions, against 147 → 172 MiB when each large chunk had its own mapping. That mapping costs page faults on every
/// update (a live replay: 36 % → 47 % of a core); trimming every few seconds costs a fault per page only once per
/// period, for the chunks freed since.
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
