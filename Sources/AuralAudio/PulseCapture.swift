import Foundation
import Synchronization

/// Wakes a capture's delivery thread and keeps why the capture ended (the first reason wins).
final class CaptureSignal: Sendable {
    /// Why a capture ended: `error` is nil for a normal end (stopped, or the captured application finished).
    struct Ending: Sendable {
        var error: AudioDeviceError?
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private let ending = Mutex<Ending?>(nil)

    /// Wakes the delivery thread (never blocks; safe on the mainloop thread).
    func wake() {
        semaphore.signal()
    }

    /// Records the end of the capture, unless it has ended already, and wakes the delivery thread.
    func end(_ error: AudioDeviceError?) {
        ending.withLock { if $0 == nil { $0 = Ending(error: error) } }
        semaphore.signal()
    }

    /// Why the capture ended, or nil while it runs.
    var reason: Ending? { ending.withLock { $0 } }

    /// Sleeps until woken or `timeout` seconds pass.
    func waitForWork(timeout: TimeInterval) {
        _ = semaphore.wait(timeout: .now() + timeout)
    }
}

/// A running capture: the server connection, its record streams, the ring they fill, and the thread that turns
/// ring contents into `AudioBuffer`s.
///
/// Audio flows: mainloop thread (read callback) → `SampleRing` → delivery thread → `AsyncThrowingStream`. The
/// delivery thread also tears everything down when the capture ends, so no `pa_*` object is freed on the
/// mainloop thread and nothing blocks Swift's cooperative pool.
final class PulseCapture: @unchecked Sendable {
    /// Buffers the stream holds for a slow consumer before new ones are dropped (and counted): about 5 s at 20 ms.
    static let streamBufferLimit = 256
    /// Seconds of audio the ring holds between the capture callback and the delivery thread.
    static let ringDuration = 2.0

    let context: PulseContext
    let format: AudioFormat
    let ring: SampleRing
    let signal: CaptureSignal
    private let streams: Mutex<[PulseRecordStream]>
    /// When set (before `start()`), buffers are the mixer's mix, with `ring` as its clock.
    var mixer: PlaybackMixer?
    private let streamDroppedFrames = Atomic<Int>(0)

    /// Connects, then lets `open` create the record streams (with the lock not held) into the capture's ring.
    init(
        format: AudioFormat, server: String?,
        open: (PulseContext, SampleRing, CaptureSignal) throws(AudioDeviceError) -> [PulseRecordStream]
    ) throws(AudioDeviceError) {
        let context = try PulseContext(server: server)
        let ring = SampleRing(minimumCapacity: Int(Double(format.sampleRate * format.channelCount) * Self.ringDuration))
        let signal = CaptureSignal()
        self.context = context
        self.format = format
        self.ring = ring
        self.signal = signal
        streams = Mutex(try open(context, ring, signal))
        context.withLock {
            context.onConnectionLost = { error in signal.end(error) }
        }
    }

    /// Frames lost because the consumer fell behind: dropped at the ring (the delivery thread was late) or at the
    /// stream's buffer (the `for await` loop was late).
    var overrunFrameCount: Int {
        ring.droppedSamples / max(format.channelCount, 1) + streamDroppedFrames.load(ordering: .relaxed)
    }

    /// The source the first stream records now.
    var deviceName: String? {
        streams.withLock { $0.first }?.deviceName
    }

    /// Starts the delivery thread and returns the buffers.
    func start() -> AsyncThrowingStream<AudioBuffer, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: AudioBuffer.self, throwing: Error.self, bufferingPolicy: .bufferingOldest(Self.streamBufferLimit))
        let signal = self.signal
        continuation.onTermination = { _ in signal.end(nil) }
        let thread = Thread { self.deliver(to: continuation) }
        thread.name = "AuralAudio delivery"
        thread.start()
        return stream
    }

    /// Ends the capture: what is already in the ring is still delivered, then the stream finishes.
    func stop() {
        signal.end(nil)
    }

    private func deliver(to continuation: AsyncThrowingStream<AudioBuffer, Error>.Continuation) {
        let channels = format.channelCount
        let rate = Double(format.sampleRate)
        var deliveredFrames = 0
        while true {
            let ending = signal.reason
            mixer?.refreshIfNeeded()
            let samples = mixer?.mix(clock: ring, draining: ending != nil) ?? ring.read(maximum: ring.capacity, granule: channels)
            if !samples.isEmpty {
                let frames = samples.count / channels
                // Dropped frames still count, so a buffer's time stays true to the audio after an overrun.
                let startTime = Double(deliveredFrames + ring.droppedSamples / channels) / rate
                deliveredFrames += frames
                if case .dropped = continuation.yield(AudioBuffer(samples: samples, format: format, startTime: startTime)) {
                    streamDroppedFrames.add(frames, ordering: .relaxed)
                }
            }
            if let ending, ring.available < channels {
                mixer?.close()
                for stream in streams.withLock({ $0 }) { stream.close() }
                context.close()
                if let error = ending.error {
                    continuation.finish(throwing: error)
                } else {
                    continuation.finish()
                }
                return
            }
            signal.waitForWork(timeout: 0.1)
        }
    }
}

/// A source's current capture, which the microphone and system-audio sources hold the same way: replaced at each
/// `start()`, stopped by `stop()` and when the source is released, and asked for its overrun count.
final class PulseCaptureSlot: Sendable {
    private let capture = Mutex<PulseCapture?>(nil)

    deinit {
        stop()
    }

    /// The running capture, or nil before the first `start()`.
    var current: PulseCapture? {
        capture.withLock { $0 }
    }

    /// Makes `newCapture` current and starts its delivery; the caller stops the previous one first.
    func start(_ newCapture: PulseCapture) -> AsyncThrowingStream<AudioBuffer, Error> {
        capture.withLock { $0 = newCapture }
        return newCapture.start()
    }

    /// Ends the current capture, if any (see `PulseCapture.stop()`).
    func stop() {
        current?.stop()
    }

    /// Frames the current capture lost (0 when there is none).
    var overrunFrameCount: Int {
        current?.overrunFrameCount ?? 0
    }
}
