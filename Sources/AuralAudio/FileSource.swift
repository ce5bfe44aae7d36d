import Dispatch
import Foundation

/// An audio or video file as an `AudioSource`: its sound as 16 kHz mono buffers, decoded on demand.
///
/// ```swift
/// let source = FileSource(url: URL(fileURLWithPath: "interview.m4a"))
/// for try await buffer in try source.start() {
///     print(buffer.startTime, buffer.samples.count)   // seconds into the file, samples at 16 kHz
/// }
/// ```
///
/// Buffers are `AudioFormat.whisper` (16 kHz mono), `bufferDuration` long but for the last, with the same
/// samples `AudioFileLoader` gives for the file; `startTime` counts the samples delivered before each one.
/// Decoding runs on the source's own serial queue, never on Swift's cooperative pool, and only when the
/// consumer asks for the next buffer, so memory stays bounded however long the file and however slow the
/// consumer. The stream finishes after the last buffer, throws the `AudioSourceError` that stopped
/// decoding, and finishes early after `stop()` (at the consumer's next request).
public final class FileSource: AudioSource, @unchecked Sendable {
    // @unchecked: the only mutable state, `delivery`, is guarded by `lock`.

    /// The file being read.
    public let url: URL
    /// Length of each buffer in seconds (the last one can be shorter).
    public let bufferDuration: TimeInterval

    private let lock = NSLock()
    private var delivery: Delivery?

    /// A source for `url`; nothing is opened until `start()`.
    ///
    /// - Parameters:
    ///   - url: A local audio or video file in any format FFmpeg reads.
    ///   - bufferDuration: Seconds of audio per buffer, more than 0; default 1.
    public init(url: URL, bufferDuration: TimeInterval = 1) {
        precondition(bufferDuration > 0, "bufferDuration must be positive")
        self.url = url
        self.bufferDuration = bufferDuration
    }

    /// Opens the file and returns its buffers from the start.
    ///
    /// Calling it again stops the previous stream and starts a new one from the beginning of the file.
    /// - Throws: `AudioSourceError` when the file cannot be opened (missing, not media, no audio track, a
    ///   damaged header); errors found later, while decoding, come through the stream.
    public func start() throws -> AsyncThrowingStream<AudioBuffer, Error> {
        let samplesPerBuffer = max(1, Int((bufferDuration * Double(AudioConverter.outputSampleRate)).rounded()))
        let next = Delivery(reader: try AudioFileReader(url: url, chunkSampleCount: samplesPerBuffer))
        lock.withLock {
            delivery?.stop()
            delivery = next
        }
        return AsyncThrowingStream { try await next.next() }
    }

    /// Finishes the stream at its next buffer. Safe to call more than once, or before `start()`.
    public func stop() {
        lock.withLock { delivery?.stop() }
    }
}

/// One run of a `FileSource`: a reader that is only used on `queue`, one buffer at a time.
private final class Delivery: @unchecked Sendable {
    // @unchecked: `reader` and `deliveredSamples` are touched only on `queue`; `stopped` only under `lock`.
    private let queue = DispatchQueue(label: "AuralAudio.FileSource")
    private let reader: AudioFileReader
    private var deliveredSamples = 0
    private let lock = NSLock()
    private var stopped = false

    init(reader: AudioFileReader) {
        self.reader = reader
    }

    func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Decodes the next buffer on `queue`; nil at the end of the file or once stopped.
    func next() async throws -> AudioBuffer? {
        guard !isStopped else { return nil }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard !self.isStopped else { return continuation.resume(returning: nil) }
                do {
                    guard let samples = try self.reader.read() else { return continuation.resume(returning: nil) }
                    let start = Double(self.deliveredSamples) / Double(AudioConverter.outputSampleRate)
                    self.deliveredSamples += samples.count
                    continuation.resume(returning: AudioBuffer(samples: samples, format: .whisper, startTime: start))
                } catch {
                    self.stop()
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
