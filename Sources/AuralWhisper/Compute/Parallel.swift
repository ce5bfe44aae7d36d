import Foundation

/// Splits element-wise work across the machine's cores when there is enough of it to pay for the hand-off.
/// Runs on `WorkerPool`'s threads (not Swift's cooperative pool) and returns when every part is done.
enum Parallel {
    /// Calls `body` on disjoint ranges covering 0..<count, in parallel when `count ≥ minimum`.
    static func forEachRange(_ count: Int, minimum: Int = 1 << 16, _ body: (Range<Int>) -> Void) {
        let parts = count >= minimum ? WorkerPool.current.threads : 1
        if parts == 1 {
            body(0..<count)
            return
        }
        WorkerPool.current.run(parts: parts) { part in
            body((count * part / parts)..<(count * (part + 1) / parts))
        }
    }
}
