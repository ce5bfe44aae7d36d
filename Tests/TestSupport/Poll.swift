import Foundation

/// Waiting for a condition with a deadline, the one way the tests do it: the deadline is on the monotonic clock
/// (`ContinuousClock`), since a step of the wall clock made `Date()` deadlines expire early.
public enum Poll {
    /// Checks `condition` every `interval` until it holds, and says whether it did before `timeout` seconds passed.
    /// Sleeps between checks without holding a thread.
    public static func until(
        timeout: Double, every interval: Duration = .milliseconds(5), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while try await !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }

    /// `until` on the calling thread, which sleeps between checks: for code that runs on a thread of its own or must
    /// not suspend.
    public static func blockingUntil(
        timeout: Double, every interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        let pause = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while try !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(pause)
        }
        return true
    }
}
