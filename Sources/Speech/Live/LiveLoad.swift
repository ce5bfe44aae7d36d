import Foundation
import Synchronization

/// How a live transcription paces its updates on a busy machine, and when the machine takes no more live sessions.
///
/// Each inference thread keeps its own `AdaptiveCadence`: it starts an update every `cadence` seconds of audio, and
/// when its updates take long (other sessions or programs share the cores) it waits for more audio, so that it
/// computes at most `LiveLoad.busyFraction` of the time. Its lag stays about one cadence plus one update, however
/// many sessions run: they degrade by updating less often, not by falling behind. A session that would need more
/// than `LiveLoad.maximumCadence` marks the machine as full; with `refusesWhenFull` on, `admit()` then refuses new
/// sessions for `LiveLoad.fullMemorySeconds` (`SFSpeechError.Code.insufficientResources`).
///
/// Refusal is off unless a server turns it on (`aural serve` and `scripts/live-bench --sessions` do): an app's own
/// analyses, and input faster than real time (a file read into buffers, which test suites run many of at once), may
/// be slow on purpose, and Apple's analyzer does not refuse them either.
package final class LiveLoad: Sendable {
    /// The load every analyzer of the process shares.
    package static let shared = LiveLoad()

    /// The most of its time an inference thread spends computing: the rest waits for audio.
    static let busyFraction = 0.7
    /// The longest cadence, in seconds of audio between updates, before the machine counts as full.
    static let maximumCadence = 1.5
    /// How long, in seconds, the machine counts as full after a session last needed more than `maximumCadence`.
    static let fullMemorySeconds = 10.0

    private struct State {
        var sessions = 0
        var fullUntil: ContinuousClock.Instant?
        var refusesWhenFull = false
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()

    /// Live sessions running.
    var sessions: Int { state.withLock { $0.sessions } }

    /// Whether `admit()` refuses new sessions while the machine is full (off by default).
    package var refusesWhenFull: Bool {
        get { state.withLock { $0.refusesWhenFull } }
        set { state.withLock { $0.refusesWhenFull = newValue } }
    }

    /// Whether a session needed more than `maximumCadence` in the last `fullMemorySeconds`.
    var isFull: Bool {
        let now = clock.now
        return state.withLock { state in state.fullUntil.map { now < $0 } ?? false }
    }

    /// Counts a new live session in; `leave()` counts it out.
    /// - Throws: `SFSpeechError(.insufficientResources)` while the machine is full and `refusesWhenFull` is on.
    func admit() throws {
        let now = clock.now
        try state.withLock { state in
            if state.refusesWhenFull, let until = state.fullUntil, now < until {
                throw SFSpeechError(
                    .insufficientResources,
                    detail: "The \(state.sessions) live analyses running use every core: another one would fall behind.")
            }
            state.sessions += 1
        }
    }

    /// Counts a session out; with none left, the machine is no longer full.
    func leave() {
        state.withLock { state in
            state.sessions = max(0, state.sessions - 1)
            if state.sessions == 0 { state.fullUntil = nil }
        }
    }

    /// Notes that a session needed more than `maximumCadence`: new sessions are refused for `fullMemorySeconds`.
    func noteFull() {
        let until = clock.now + .milliseconds(Int(Self.fullMemorySeconds * 1000))
        state.withLock { $0.fullUntil = max($0.fullUntil ?? until, until) }
    }
}

/// One inference thread's cadence: `base` seconds of audio between updates, longer while its updates take more than
/// `LiveLoad.busyFraction` of that (see `LiveLoad`). Not thread-safe: the inference thread's own.
struct AdaptiveCadence {
    /// The cadence of an unloaded machine.
    let base: Double
    /// Seconds of audio that start the next update.
    private(set) var seconds: Double
    /// The recent updates' wall-clock seconds, smoothed (a full encode every few updates makes single ones uneven).
    private var averageUpdateSeconds: Double?
    /// The weight of the newest update in the average.
    private static let smoothing = 0.3

    init(base: Double) {
        self.base = base
        seconds = base
    }

    /// Takes an update's wall-clock duration; returns whether the cadence the load asks for is over
    /// `LiveLoad.maximumCadence` (the machine is full; the cadence stays at that maximum).
    mutating func noteUpdate(seconds duration: Double) -> Bool {
        let average = averageUpdateSeconds.map { $0 + Self.smoothing * (duration - $0) } ?? duration
        averageUpdateSeconds = average
        let wanted = average / LiveLoad.busyFraction
        seconds = min(LiveLoad.maximumCadence, max(base, wanted))
        return wanted > LiveLoad.maximumCadence
    }
}
