import CPulse
import Foundation
import Synchronization

/// One libpulse record stream (`pa_stream*`): float32 samples from a source, or from one sink input's share of
/// a monitor, written into a `SampleRing` by the read callback on the mainloop thread.
///
/// The read callback only copies into the ring and wakes the delivery thread; it never blocks and never allocates.
/// When the stream ends by itself it reports why through `signal.end(_:)`.
final class PulseRecordStream: @unchecked Sendable {
    /// How a stream that the server kills is reported.
    enum KillMeaning {
        /// The device went away: an error.
        case deviceDisappeared
        /// What it monitored (one application's playback) finished: a normal end.
        case finished
        /// It records the default output's monitor, and the capture moves to the next default: not an end, only
        /// `wasKilled` is set (and the delivery thread woken).
        case followsDefault
    }

    /// Fragment the server is asked to deliver, in seconds: small enough for live transcription, large enough
    /// not to wake up too often.
    static let fragmentDuration = 0.02

    let context: PulseContext
    let ring: SampleRing
    let format: AudioFormat
    /// The device name as asked for, for errors ("default input" when following the default).
    let label: String
    private let signal: CaptureSignal
    private let killMeaning: KillMeaning
    private var stream: OpaquePointer?
    private var isReady = false
    private var hasEnded = false
    private let killed = Atomic<Bool>(false)

    /// Opens the stream and waits until the server has accepted it (at most `PulseContext.timeout`).
    ///
    /// - Parameters:
    ///   - device: A source name, or nil for the default source (and then the server moves the stream to every
    ///     new default). A named device is pinned (`PA_STREAM_DONT_MOVE`), so its removal ends the stream.
    ///   - sinkInput: With a monitor `device`, records only this sink input's audio.
    init(
        context: PulseContext, name: String, format: AudioFormat, device: String?, label: String, sinkInput: UInt32? = nil,
        killMeaning: KillMeaning = .deviceDisappeared, ring: SampleRing, signal: CaptureSignal
    ) throws(AudioDeviceError) {
        self.context = context
        self.ring = ring
        self.format = format
        self.label = label
        self.signal = signal
        self.killMeaning = killMeaning
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(clamping: format.sampleRate), channels: UInt8(clamping: format.channelCount))
        guard format.sampleRate > 0, format.channelCount > 0, pa_sample_spec_valid(&spec) != 0 else {
            throw .streamFailed(device: label, reason: "The format \(format) is not one the sound server accepts (1–32 channels, 1 Hz–768 kHz).")
        }
        let fragmentBytes = UInt32(Double(format.sampleRate) * Self.fragmentDuration) * UInt32(format.channelCount) * 4
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: fragmentBytes)
        var flags = PA_STREAM_ADJUST_LATENCY.rawValue
        if device != nil { flags |= PA_STREAM_DONT_MOVE.rawValue }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        var failure: AudioDeviceError?
        context.withLock {
            guard let pulseContext = context.context, let stream = pa_stream_new(pulseContext, name, &spec, nil) else {
                failure = .streamFailed(device: label, reason: context.lastError)
                return
            }
            self.stream = stream
            pa_stream_set_state_callback(stream, { _, userdata in
                PulseRecordStream.from(userdata).stateChanged()
            }, userdata)
            pa_stream_set_read_callback(stream, { stream, _, userdata in
                PulseRecordStream.from(userdata).readAvailable(stream)
            }, userdata)
            if let sinkInput, pa_stream_set_monitor_stream(stream, sinkInput) < 0 {
                failure = .streamFailed(device: label, reason: context.lastError)
                return
            }
            guard pa_stream_connect_record(stream, device, &attributes, pa_stream_flags_t(flags)) >= 0 else {
                failure = Self.openingError(context.lastErrorCode, label: label, context: context)
                return
            }
            let settled = context.wait(timeout: PulseContext.timeout) {
                let state = pa_stream_get_state(stream)
                return state == PA_STREAM_READY || PA_STREAM_IS_GOOD(state) == 0
            }
            if !settled {
                failure = .streamFailed(device: label, reason: "The server did not open the stream within \(Int(PulseContext.timeout)) s.")
            } else if pa_stream_get_state(stream) != PA_STREAM_READY {
                failure = Self.openingError(context.lastErrorCode, label: label, context: context)
            } else {
                isReady = true
            }
        }
        if let failure {
            close()
            throw failure
        }
    }

    deinit {
        if stream != nil { close() }
    }

    /// The name of the source being recorded now (it changes when a default-following stream is moved).
    var deviceName: String? {
        context.withLock {
            guard let stream, isReady, let name = pa_stream_get_device_name(stream) else { return nil }
            return String(cString: name)
        }
    }

    /// Whether the server killed a `.followsDefault` stream (its output went away). Safe from any thread.
    var wasKilled: Bool { killed.load(ordering: .acquiring) }

    /// Disconnects and frees the stream; no callback runs afterwards. Safe to call more than once; not from a callback.
    func close() {
        context.withLock {
            hasEnded = true
            guard let stream else { return }
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_read_callback(stream, nil, nil)
            if PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 { pa_stream_disconnect(stream) }
            pa_stream_unref(stream)
            self.stream = nil
        }
    }

    // MARK: - Mainloop thread

    private func readAvailable(_ stream: OpaquePointer?) {
        while pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(stream, &data, &bytes) == 0, bytes > 0 else { break }
            // A nil pointer with a length is a hole in the recording: it becomes silence.
            ring.write(data?.assumingMemoryBound(to: Float.self), count: bytes / MemoryLayout<Float>.size)
            pa_stream_drop(stream)
        }
        signal.wake()
    }

    private func stateChanged() {
        context.signal()
        guard let stream, isReady, !hasEnded else { return }
        let state = pa_stream_get_state(stream)
        guard state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
        hasEnded = true
        let error: AudioDeviceError?
        if !context.isConnected {
            error = .connectionLost(reason: "The server closed the connection: \(context.lastError).")
        } else if killMeaning == .followsDefault {
            killed.store(true, ordering: .releasing)
            signal.wake()
            return
        } else if state == PA_STREAM_TERMINATED || killMeaning == .finished {
            error = nil
        } else {
            error = .deviceDisappeared(name: label)
        }
        signal.end(error)
    }

    private static func openingError(_ code: Int32, label: String, context: PulseContext) -> AudioDeviceError {
        if !context.isConnected { return .connectionLost(reason: "The server closed the connection: \(PulseContext.errorText(code)).") }
        if code == Int32(PA_ERR_NOENTITY.rawValue) { return .deviceNotFound(name: label) }
        return .streamFailed(device: label, reason: PulseContext.errorText(code))
    }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> PulseRecordStream {
        Unmanaged<PulseRecordStream>.fromOpaque(userdata!).takeUnretainedValue()
    }
}
