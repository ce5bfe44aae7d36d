import Foundation

/// The sample rate and channel count of interleaved `Float` audio.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second, in hertz.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int

    /// What the engine takes: 16 kHz mono.
    public static let whisper = AudioFormat(sampleRate: 16_000, channelCount: 1)

    /// A format of `sampleRate` hertz and `channelCount` interleaved channels.
    public init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// For example "48000 Hz, 2 ch".
    public var description: String { "\(sampleRate) Hz, \(channelCount) ch" }
}

/// A run of audio from a source: interleaved `Float` samples in -1...1, with their format and position.
public struct AudioBuffer: Sendable {
    /// Interleaved samples, `frameCount * format.channelCount` of them.
    public var samples: [Float]
    /// The format of `samples`.
    public var format: AudioFormat
    /// Where the first frame lies, in seconds of audio since the source started (counted from frames
    /// delivered, so it never drifts from the audio itself).
    public var startTime: TimeInterval

    /// A buffer of `samples` in `format` starting `startTime` seconds into the source.
    public init(samples: [Float], format: AudioFormat, startTime: TimeInterval) {
        self.samples = samples
        self.format = format
        self.startTime = startTime
    }

    /// Frames in the buffer (samples per channel).
    public var frameCount: Int { format.channelCount > 0 ? samples.count / format.channelCount : 0 }

    /// Length in seconds.
    public var duration: TimeInterval { format.sampleRate > 0 ? Double(frameCount) / Double(format.sampleRate) : 0 }
}

/// Anything that delivers audio: a microphone, the machine's own output, a file, or in tests a list of buffers.
///
/// ```swift
/// for try await buffer in try source.start() {
///     mono16k += converter.convert(buffer.samples)
/// }
/// ```
///
/// `start()` begins delivery and returns the buffers as they come; the stream finishes when the source ends
/// (a file's last buffer) or after `stop()`, and throws when the source fails: an `AudioDeviceError` for live audio
/// (a device that disappears, a server that stops), an `AudioSourceError` for a file that cannot be decoded.
/// Buffers already delivered are never withdrawn.
public protocol AudioSource: AnyObject, Sendable {
    /// Starts the source and returns its buffers in order.
    /// - Throws: `AudioDeviceError` when a live source cannot start (no sound server, no such device),
    ///   `AudioSourceError` when a file cannot be opened.
    func start() throws -> AsyncThrowingStream<AudioBuffer, Error>

    /// Stops delivery and finishes the stream returned by `start()`. Safe to call more than once, or before `start()`.
    func stop()
}

extension AudioSource {
    /// Starts the source without blocking the caller: `start()` runs on a thread of its own while this awaits it,
    /// so a sound server that is slow or frozen never holds one of Swift's cooperative threads (the
    /// counterpart of ScreenCaptureKit's `startCapture()`). Throws what `start()` throws.
    ///
    /// - Note: Cancelling the calling task does not cut the connection attempt short; it ends within its bound
    ///   (5 s for a live source).
    public func startCapture() async throws -> AsyncThrowingStream<AudioBuffer, Error> {
        try await onOwnThread("AuralAudio start") { [self] in try start() }
    }
}
