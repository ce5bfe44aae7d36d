import Foundation

/// The microphone: the sound server's default input, or one input chosen by name, through libpulse
/// (PulseAudio, or PipeWire through pipewire-pulse).
///
/// ```swift
/// let microphone = PulseMicrophoneSource()                 // the default input, 16 kHz mono
/// for try await buffer in try microphone.start() {
///     engine.append(buffer.samples)
/// }
/// ```
///
/// The server converts to `format` (float32, any rate and channel count), so at the default 16 kHz mono no
/// conversion is left to do. On the default input the capture follows the default: when the user picks another
/// input, the server moves the stream and buffers keep coming, from the new device. A named input is pinned;
/// when it goes away the stream ends with `AudioDeviceError.deviceDisappeared`, after the buffers already captured.
/// A server that freezes ends the stream with `.serverNotResponding` after `options.stallTimeout`, one that stops
/// with `.connectionLost`; with `options.reconnects` the capture connects again instead (see `LiveCaptureOptions`).
///
/// Samples go from libpulse's capture thread into a lock-free ring and are delivered from a thread of the
/// source's own, so the capture thread never waits for the consumer. When the consumer falls behind, audio is
/// dropped and counted in `overrunFrameCount`; later buffers' `startTime` still counts the dropped frames.
public final class PulseMicrophoneSource: AudioSource {
    /// The input asked for, as `aural devices` lists it; nil means the default input.
    public let deviceName: String?
    /// The format buffers are delivered in.
    public let format: AudioFormat
    /// How the capture copes with a server that freezes or restarts.
    public let options: LiveCaptureOptions
    private let capture = PulseCaptureSlot()
    /// The server to use instead of the one libpulse finds (tests point this at a server they stop).
    let server: String?

    /// A source for the input named `deviceName` (nil: the default input, following changes of the default),
    /// delivering `format` (default: 16 kHz mono, what the engine takes), coping with server faults as `options`
    /// says (default: a frozen server ends the stream after 2 s; no reconnecting).
    public convenience init(deviceName: String? = nil, format: AudioFormat = .whisper, options: LiveCaptureOptions = .init()) {
        self.init(deviceName: deviceName, format: format, options: options, server: nil)
    }

    init(deviceName: String?, format: AudioFormat, options: LiveCaptureOptions = .init(), server: String?) {
        self.deviceName = deviceName
        self.format = format
        self.options = options
        self.server = server
    }

    /// Connects to the sound server and starts recording.
    ///
    /// Blocks for the round trips to the server (a few milliseconds; at most 5 s when the server does not answer);
    /// from async code, `startCapture()` waits for them on a thread of its own instead.
    /// Starting again stops the previous capture first, which finishes its stream.
    /// - Throws: `AudioDeviceError.noSoundServer`, `.deviceNotFound`, `.streamFailed`.
    public func start() throws -> AsyncThrowingStream<AudioBuffer, Error> {
        stop()
        let deviceName = self.deviceName
        let format = self.format
        let newCapture = try PulseCapture(format: format, server: server, options: options) { context, ring, signal throws(AudioDeviceError) in
            let stream = try PulseRecordStream(
                context: context, name: "AuralKit microphone", format: format, device: deviceName,
                label: deviceName ?? "default input", ring: ring, signal: signal)
            return PulseCapture.Streams(records: [stream], mixer: nil, followedOutput: nil)
        }
        return capture.start(newCapture)
    }

    /// Stops recording; buffers already captured are still delivered, then the stream finishes.
    /// Safe to call more than once, or before `start()`.
    public func stop() {
        capture.stop()
    }

    /// Frames lost since `start()` because the consumer did not keep up (0 when it did).
    public var overrunFrameCount: Int {
        capture.overrunFrameCount
    }

    /// The input being recorded now (it changes when the default moves), or nil when not capturing.
    public var currentDeviceName: String? {
        capture.current?.deviceName
    }
}
