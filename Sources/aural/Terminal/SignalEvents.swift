import Dispatch
import Foundation

/// Signals as an async stream: the default action (ending the process at once) is replaced by an event the
/// command handles, such as stopping a session with the flush on `SIGINT` or redrawing on `SIGWINCH`.
enum SignalEvents {
    /// Keeps the dispatch sources alive for the life of the process; only `stream(_:)` touches it, from one task.
    private nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []

    /// From now on, each of `signals` is delivered to the returned stream instead of taking its default action.
    static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        return stream
    }
}
