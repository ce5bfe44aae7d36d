import AuralKit
import Foundation
import Synchronization

/// What `aural listen` knows of the audio the session hears: its level and how much has been captured.
///
/// The session does not report either, so the command measures the buffers on their way in (`MeteredSource`).
final class AudioMeter: Sendable {
    private struct State {
        var sumOfSquares = 0.0
        var sampleCount = 0
        var lastLevel = 0.0
        var capturedSeconds = 0.0
    }

    private let state = Mutex(State())

    /// Counts one buffer.
    func record(_ buffer: AudioBuffer) {
        var sum = 0.0
        for sample in buffer.samples { sum += Double(sample) * Double(sample) }
        state.withLock { state in
            state.sumOfSquares += sum
            state.sampleCount += buffer.samples.count
            state.capturedSeconds += buffer.duration
        }
    }

    /// The root mean square of the samples recorded since the last call (0…1), or the last value when none came.
    func takeLevel() -> Double {
        state.withLock { state in
            if state.sampleCount > 0 {
                state.lastLevel = (state.sumOfSquares / Double(state.sampleCount)).squareRoot()
                state.sumOfSquares = 0
                state.sampleCount = 0
            }
            return state.lastLevel
        }
    }

    /// Seconds of audio captured so far, over every start of the source (the session's clock: its result times
    /// count the same audio, continuing across a pause).
    var capturedSeconds: Double { state.withLock { $0.capturedSeconds } }

    /// Forgets the level (after a pause, so the meter does not show the last sound heard).
    func resetLevel() {
        state.withLock { state in
            state.lastLevel = 0
            state.sumOfSquares = 0
            state.sampleCount = 0
        }
    }
}

/// An audio source that measures what another one delivers and passes it on unchanged.
///
/// Each `start()` makes a fresh source with `makeSource`, as the session does for the default input, so pausing
/// and resuming work with sources that cannot be started twice.
final class MeteredSource: AudioSource {
    let meter: AudioMeter
    private let makeSource: @Sendable () -> any AudioSource
    private let current = Mutex<(any AudioSource)?>(nil)

    init(meter: AudioMeter, makeSource: @escaping @Sendable () -> any AudioSource) {
        self.meter = meter
        self.makeSource = makeSource
    }

    func start() throws -> AsyncThrowingStream<AudioBuffer, Error> {
        let source = makeSource()
        let buffers = try source.start()
        current.withLock { $0 = source }
        let meter = self.meter
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await buffer in buffers {
                        meter.record(buffer)
                        continuation.yield(buffer)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                source.stop()
            }
        }
    }

    func stop() {
        current.withLock { $0 }?.stop()
    }
}
