import Foundation

/// Runs heavy synchronous work (a model over a whole recording) on a thread of its own and awaits its result, so a
/// test never holds one of Swift's few cooperative threads for seconds: tests that wait on timers or audio buffers
/// share those threads and would otherwise stall behind it. For a piece of work inside an async test; a suite of
/// synchronous heavy tests takes `.heavyWork` (`HeavyWorkLane`) instead.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "test work"
        thread.stackSize = 8 << 20
        thread.start()
    }
}
