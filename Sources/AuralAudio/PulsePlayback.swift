import CPulse
import Foundation
import Synchronization

/// A playback stream to the sound server's default output: the caller writes float32 frames (interleaved, at the
/// stream's rate and channel count) as they become due, and the server mixes, resamples and plays them.
///
/// ```swift
/// let playback = try PulsePlayback(name: "Player", sampleRate: 44_100, channelCount: 2)
/// playback.write(frames)   // every few milliseconds, what is due by then
/// playback.close()
/// ```
///
/// The stream follows the default output when it changes. It opens with `targetLatency` of silence queued, so that
/// the frames written after it stay that far ahead of the loudspeaker on either server (PipeWire starts playing as
/// soon as anything is queued, PulseAudio once the buffer it was asked for is full). A writer that falls behind by
/// more gets silence, then playback starts again (the server's prebuffering). Writes never block: they copy the
/// frames to the server's queue.
package final class PulsePlayback: @unchecked Sendable {
    /// Seconds of audio queued ahead of the loudspeaker. The writer is an ordinary thread, so this is what a stall of
    /// the writing process (a busy machine, a virtual machine's stolen time) may cost before a gap is heard: with
    /// 0.1 s of buffering a 0.15 s stop of the process put 5 ms of silence mid-file on PulseAudio; with 0.5 s two
    /// 0.2 s stops put none. On PipeWire the buffering asked for was not queued until the stream opened with it.
    package static let targetLatency = 0.5

    /// Frames per second.
    package let sampleRate: Int
    /// Interleaved channels per frame.
    package let channelCount: Int
    private let context: PulseContext
    /// The `pa_stream*`, guarded by the context's lock; nil after `close()`.
    private var stream: OpaquePointer?
    private let failed = Atomic<Bool>(false)

    /// Connects to the server and opens the stream; blocks until the server accepted it (at most
    /// `PulseContext.timeout`).
    /// - Throws: `AudioDeviceError` when there is no server or no output, or the format is not one it plays.
    package init(name: String, sampleRate: Int, channelCount: Int) throws(AudioDeviceError) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(clamping: sampleRate), channels: UInt8(clamping: channelCount))
        guard sampleRate > 0, channelCount > 0, pa_sample_spec_valid(&spec) != 0 else {
            throw .streamFailed(device: "default output", reason: "The format \(sampleRate) Hz, \(channelCount) channels is not one the sound server accepts (1–32 channels, 1 Hz–768 kHz).")
        }
        context = try PulseContext(applicationName: name)
        var failure: AudioDeviceError?
        context.withLock { failure = openStream(name: name, spec: &spec) }
        if let failure {
            close()
            throw failure
        }
    }

    deinit {
        close()
    }

    /// Whether the stream failed since it opened (the server went away or killed it): writes are dropped then.
    package var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Queues `samples` (interleaved frames) after those written before. Never blocks; dropped once the stream failed.
    package func write(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress, !samples.isEmpty, !hasFailed else { return }
        context.withLock {
            guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
            if pa_stream_write(stream, base, samples.count * MemoryLayout<Float>.size, nil, 0, PA_SEEK_RELATIVE) < 0 {
                failed.store(true, ordering: .releasing)
            }
        }
    }

    /// Stops playing at once (what is queued is dropped), closes the stream and the connection. Safe to call more
    /// than once.
    package func close() {
        context.withLock {
            guard let stream else { return }
            pa_stream_set_state_callback(stream, nil, nil)
            if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
            pa_stream_unref(stream)
            self.stream = nil
        }
        context.close()
    }

    /// Creates and connects the stream, and waits until it is ready or failed (lock held).
    private func openStream(name: String, spec: inout pa_sample_spec) -> AudioDeviceError? {
        let label = "default output"
        guard let pulseContext = context.context, let stream = pa_stream_new(pulseContext, name, &spec, nil) else {
            return .streamFailed(device: label, reason: context.lastError)
        }
        self.stream = stream
        pa_stream_set_state_callback(stream, { stream, userdata in
            let playback = Unmanaged<PulsePlayback>.fromOpaque(userdata!).takeUnretainedValue()
            if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) == 0 { playback.failed.store(true, ordering: .releasing) }
            playback.context.signal()
        }, Unmanaged.passUnretained(self).toOpaque())
        let targetBytes = UInt32(Double(sampleRate) * Self.targetLatency) * UInt32(channelCount) * 4
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: targetBytes, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        guard pa_stream_connect_playback(stream, nil, &attributes, PA_STREAM_ADJUST_LATENCY, nil, nil) >= 0 else {
            return .streamFailed(device: label, reason: context.lastError)
        }
        let settled = context.wait(timeout: PulseContext.timeout) {
            let state = pa_stream_get_state(stream)
            return state == PA_STREAM_READY || PA_STREAM_IS_GOOD(state) == 0
        }
        if !settled { return .streamFailed(device: label, reason: "The server did not open the stream within \(Int(PulseContext.timeout)) s.") }
        if pa_stream_get_state(stream) != PA_STREAM_READY {
            if pa_context_errno(pulseContext) == Int32(PA_ERR_NOENTITY.rawValue) { return .deviceNotFound(name: label) }
            return .streamFailed(device: label, reason: context.lastError)
        }
        let lead = [Float](repeating: 0, count: Int(Double(sampleRate) * Self.targetLatency) * channelCount)
        if pa_stream_write(stream, lead, lead.count * MemoryLayout<Float>.size, nil, 0, PA_SEEK_RELATIVE) < 0 {
            return .streamFailed(device: label, reason: context.lastError)
        }
        return nil
    }
}
