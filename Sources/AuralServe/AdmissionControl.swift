import Foundation

/// Bounded concurrency with a queue: at most `slots` transcriptions run at once, at most `queueLimit` more wait,
/// and past that a request is refused at once (429 with `Retry-After`), so latency never grows without bound.
/// Blocking: it runs on civetweb's worker threads, never on Swift's cooperative pool.
final class AdmissionControl: @unchecked Sendable {  // every field is guarded by `condition`
    let slots: Int
    let queueLimit: Int
    private let condition = NSCondition()
    private var running = 0
    private var waiting = 0
    private var closed = false

    init(slots: Int, queueLimit: Int) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
    }

    /// Runs `work` in a slot, waiting in the queue for one.
    /// - Throws: `APIError.busy` when the queue is full, `.shuttingDown` once `close()` was called.
    func run<Result>(_ work: () throws -> Result) throws -> Result {
        condition.lock()
        if closed {
            condition.unlock()
            throw APIError.shuttingDown
        }
        if running >= slots {
            guard waiting < queueLimit else {
                condition.unlock()
                throw APIError.busy(retryAfterSeconds: 5)
            }
            waiting += 1
            while running >= slots && !closed { condition.wait() }
            waiting -= 1
            if closed {
                condition.unlock()
                throw APIError.shuttingDown
            }
        }
        running += 1
        condition.unlock()
        defer {
            condition.lock()
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try work()
    }

    /// Transcriptions running and waiting now.
    var load: (running: Int, waiting: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (running, waiting)
    }

    /// Refuses new work and wakes the queue (its requests get 503); work already running finishes.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
