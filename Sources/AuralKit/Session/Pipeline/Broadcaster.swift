import Synchronization

/// Hands every value to any number of `AsyncStream` subscribers; each new stream starts with the current value.
final class Broadcaster<Value: Sendable>: Sendable {
    private struct State {
        var latest: Value
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    init(initial: Value) { state = Mutex(State(latest: initial)) }

    /// A stream of every later value, starting with `current`.
    func stream(current: Value) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    func yield(_ value: Value) {
        let subscribers = state.withLock { state in
            state.latest = value
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(value) }
    }
}
