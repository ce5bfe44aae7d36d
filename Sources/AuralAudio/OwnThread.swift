import Foundation

/// Runs `body` on a new thread named `name` and awaits its result, so a call that blocks on the sound server
/// (connecting, opening a stream, listing devices) never holds one of Swift's cooperative threads.
func onOwnThread<T: Sendable, Failure: Error>(
    _ name: String, _ body: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
        let thread = Thread { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
        thread.name = name
        thread.start()
    }
    return try result.get()
}
