import Dispatch
import Foundation

/// Splits element-wise work across the machine's cores when there is enough of it to pay for the hand-off.
/// Runs on Dispatch's worker threads (not Swift's cooperative pool) and returns when every part is done.
enum Parallel {
    /// Cores used for element-wise kernels.
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Calls `body` on disjoint ranges covering 0..<count, in parallel when `count ≥ minimum`.
    static func forEachRange(_ count: Int, minimum: Int = 1 << 16, _ body: (Range<Int>) -> Void) {
        let parts = count >= minimum ? min(cores, 8) : 1
        if parts == 1 {
            body(0..<count)
            return
        }
        withoutActuallyEscaping(body) { body in
            let box = UncheckedBox(body)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                box.value((count * part / parts)..<(count * (part + 1) / parts))
            }
        }
    }
}

/// Carries a non-Sendable closure into `concurrentPerform`, whose iterations touch disjoint data and all end before
/// the call returns.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
