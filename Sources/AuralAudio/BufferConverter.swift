import Foundation

/// Turns a source's buffers, in whatever format each one comes, into one continuous 16 kHz mono signal.
///
/// ```swift
/// let converter = BufferConverter()
/// var mono16k: [Float] = []
/// for try await buffer in try microphone.start() {
///     mono16k += try converter.convert(buffer)
/// }
/// mono16k += converter.flush()
/// ```
///
/// It keeps one `AudioConverter` (libswresample, the conversion faster-whisper uses) across buffers, so a
/// signal split into buffers of any size converts to exactly the samples it gives in one piece: no clicks at
/// buffer boundaries and no drift. When a buffer's format differs from the previous one (a device that
/// changed rate or channel count), the old converter's tail is drained into the output and a new one is
/// made for the new format.
///
/// - Note: Not thread-safe; use it from one task or thread at a time.
public final class BufferConverter {
    private var converter: AudioConverter?
    private var format: AudioFormat?

    /// A converter that takes its input format from the first buffer.
    public init() {}

    /// Converts the next buffer and returns the 16 kHz mono samples ready so far (the resampler holds back
    /// a few milliseconds until the next buffer or `flush()`).
    ///
    /// - Throws: `AudioSourceError.conversionFailed` for a format libswresample cannot take (a rate of 0,
    ///   more than 64 channels).
    public func convert(_ buffer: AudioBuffer) throws -> [Float] {
        var output: [Float] = []
        if buffer.format != format || converter == nil {
            output += flush()
            converter = try AudioConverter(inputFormat: buffer.format)
            format = buffer.format
        }
        output += converter!.convert(buffer.samples)
        return output
    }

    /// Drains what the resampler holds after the last buffer. The next `convert` starts afresh.
    public func flush() -> [Float] {
        defer {
            converter = nil
            format = nil
        }
        return converter?.flush() ?? []
    }
}
