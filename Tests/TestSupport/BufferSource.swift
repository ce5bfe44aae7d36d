import AuralAudio
import Foundation
import Synchronization

/// An `AudioSource` that plays given 16 kHz mono samples, the stand-in for a microphone in session tests: real
/// audio (a fixture's samples), delivered in chunks, as fast as the consumer takes them or paced like a live
/// input.
///
/// ```swift
/// let source = BufferSource(samples: try Fixtures.samples("beckett.wav"), realTime: true)
/// for try await buffer in try source.start() { … }   // 100 ms buffers, one every 100 ms
/// ```
///
/// Buffers carry `AudioFormat.whisper` and a `startTime` counted from the frames before them. After the last
/// buffer the stream finishes, or throws `failure` when one is given (a device that goes away). `stop()` ends
/// delivery before the next buffer and finishes the stream; starting again plays from the beginning, or, with
/// `continuesWhileStopped`, from where the recording is by the wall clock, as a microphone hears a speaker who
/// went on talking. `playedRanges` tells which parts of the recording were delivered.
/// Delivery runs on a thread of its own, so the pace holds when Swift's cooperative pool is busy.
public final class BufferSource: AudioSource {
    /// The samples played, 16 kHz mono.
    public let samples: [Float]
    /// Samples per buffer (the last one may be shorter).
    public let chunkSampleCount: Int
    /// Whether buffers are paced like a live input (each one when its audio would have been recorded) rather
    /// than delivered as fast as the stream takes them.
    public let realTime: Bool
    /// Thrown by the stream after the last buffer; nil to finish normally.
    public let failure: (any Error)?
    /// Whether a restart goes on where the recording is by the wall clock since the first start, skipping what
    /// played while stopped (real time only), rather than playing from the beginning.
    public let continuesWhileStopped: Bool
    private let running = Mutex<Playback?>(nil)
    private let log = PlayLog()

    /// A source playing `samples` (16 kHz mono) in buffers of `chunkDuration` seconds (default 0.1).
    public init(
        samples: [Float], chunkDuration: TimeInterval = 0.1, realTime: Bool = false, continuesWhileStopped: Bool = false,
        failure: (any Error)? = nil
    ) {
        precondition(chunkDuration > 0, "chunkDuration must be positive")
        precondition(realTime || !continuesWhileStopped, "only a real-time source goes on while stopped")
        self.samples = samples
        self.chunkSampleCount = max(1, Int((chunkDuration * Double(AudioFormat.whisper.sampleRate)).rounded()))
        self.realTime = realTime
        self.continuesWhileStopped = continuesWhileStopped
        self.failure = failure
    }

    /// The parts of the recording delivered so far, in seconds of the recording, one range per start.
    public var playedRanges: [ClosedRange<Double>] { log.state.withLock { $0.played } }

    deinit {
        stop()
    }

    /// Starts playing from the first sample, on a new thread, and returns the buffers. Stops a previous playback
    /// first. Never throws.
    public func start() throws -> AsyncThrowingStream<AudioBuffer, Error> {
        stop()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AudioBuffer.self, throwing: Error.self)
        let playback = Playback()
        continuation.onTermination = { _ in playback.stop() }
        running.withLock { $0 = playback }
        let samples = samples
        let chunk = chunkSampleCount
        let realTime = realTime
        let failure = failure
        let rate = Double(AudioFormat.whisper.sampleRate)
        let now = DispatchTime.now()
        let (started, firstPosition, playIndex) = log.state.withLock { log in
            let first = log.firstStart ?? now
            log.firstStart = first
            let skipped = continuesWhileStopped ? Int(Double(now.uptimeNanoseconds - first.uptimeNanoseconds) / 1e9 * rate) : 0
            let position = min(samples.count, skipped)
            log.played.append(Double(position) / rate...Double(position) / rate)
            // Buffers are timed from the recording's start, so a restart mid-recording keeps the pace.
            return (now - .nanoseconds(Int(Double(position) / rate * 1e9)), position, log.played.count - 1)
        }
        let log = log
        let thread = Thread {
            var position = firstPosition
            while position < samples.count, !playback.isStopped {
                let end = min(samples.count, position + chunk)
                if realTime {
                    // A buffer is ready once its last sample would have been recorded.
                    playback.sleep(until: started + .nanoseconds(Int(Double(end) / rate * 1e9)))
                    if playback.isStopped { break }
                }
                continuation.yield(
                    AudioBuffer(samples: Array(samples[position..<end]), format: .whisper, startTime: Double(position) / rate))
                log.state.withLock { $0.played[playIndex] = $0.played[playIndex].lowerBound...Double(end) / rate }
                position = end
            }
            if let failure, !playback.isStopped {
                continuation.finish(throwing: failure)
            } else {
                continuation.finish()
            }
        }
        thread.name = "BufferSource"
        thread.start()
        return stream
    }

    /// Stops delivery before the next buffer and finishes the stream. Safe to call more than once, or before `start()`.
    public func stop() {
        running.withLock { $0 }?.stop()
    }
}

/// When a source first started, and which parts of its recording it delivered.
private final class PlayLog: Sendable {
    let state = Mutex<(firstStart: DispatchTime?, played: [ClosedRange<Double>])>((nil, []))
}

/// One playback's stop flag, and the wait it interrupts.
private final class Playback: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func stop() {
        if !stopped.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
    }

    /// Sleeps until `deadline`, or until `stop()`.
    func sleep(until deadline: DispatchTime) {
        guard !isStopped, deadline > .now() else { return }
        if wake.wait(timeout: deadline) == .success { wake.signal() }  // keep the wake for later waits
    }
}
