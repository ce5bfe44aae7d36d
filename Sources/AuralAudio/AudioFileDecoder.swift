import Foundation

/// Decodes the sound of any file FFmpeg's libraries read at the stream's own sample rate and channel count, as
/// interleaved `Float` frames, with exact seeking.
///
/// ```swift
/// let decoder = try AudioFileDecoder(url: URL(fileURLWithPath: "talk.mp3"))
/// print(decoder.sampleRate, decoder.channelCount, try decoder.frameCount)   // 44100 2 441216
/// try decoder.seek(toFrame: 44_100)                                         // one second in
/// while let frames = try decoder.read(maximumFrames: 4_096) {               // left, right, left, right, …
///     play(frames)
/// }
/// ```
///
/// The first audio stream is decoded as `AudioFileReader` decodes it (same packets, same decoder, damaged packets
/// skipped), but nothing is mixed or resampled: the samples are the decoder's, converted to `Float` (16-bit samples
/// divided by 32768, float ones unchanged, so neither quantised nor clipped). Unlike `AudioFileReader`, WAV files go
/// through FFmpeg here too.
///
/// Length: `frameCount` is the stream's length as the container states it, when it does (FLAC, MP3 with a Xing or
/// LAME header, Ogg, MP4/M4A); reading stops there, dropping the codec's padding beyond it. When the container does
/// not state it (Matroska, WebM) or only estimates it from the bit rate, asking `frameCount` decodes the file once.
/// When the audio ends before the stated length (a cut-off file), reading stops where it ends and `frameCount`
/// becomes the frames decoded from then on.
///
/// Seeking is exact: after `seek(toFrame: n)`, `read` returns the frames a read from the start returns from frame n
/// on, bit for bit. Codecs carry state from packet to packet, so the decoder gets there by decoding: forwards from
/// the current position, or, backwards, from the start of the file (the frames of the last read are kept, so a
/// seek back into them costs nothing).
///
/// - Note: Not thread-safe, and its calls block on file I/O and decoding: drive a decoder from one dedicated thread
///   (or a serial `DispatchQueue`), never from Swift's cooperative pool.
public final class AudioFileDecoder {
    /// The file being decoded.
    public let url: URL
    /// The stream's sample rate, in hertz.
    public let sampleRate: Int
    /// The stream's channel count: the samples per frame that `read` returns.
    public let channelCount: Int

    private var decoder: FFmpegDecoder
    /// The length: stated by the container or counted, and then corrected if the audio ends first.
    private var length: Int?
    /// Decoded samples kept; `buffer[0]` is the first sample of frame `bufferStart`.
    private var buffer: FrameBuffer
    /// The frame the next read starts at.
    private var position = 0
    /// Frames the current `decoder` has given so far.
    private var decodedFrames = 0
    private var decoderEnded = false

    /// Samples asked of FFmpeg per call when a read or a seek wants more: about a second of stereo.
    private static let decodeChunk = 96_000

    /// Opens `url` and reads its header; no audio is decoded yet.
    ///
    /// - Throws: `AudioSourceError`: `.fileNotFound`, `.unreadableFile`, `.notAudio` (not a media file),
    ///   `.noAudioTrack`, `.corruptFile` (a damaged header), `.unsupportedCodec`.
    public init(url: URL) throws {
        self.url = url
        decoder = try FFmpegDecoder(url: url, output: .streamFormat)
        sampleRate = decoder.sampleRate
        channelCount = decoder.channelCount
        length = decoder.statedFrameCount
        buffer = FrameBuffer(channels: channelCount)
    }

    /// The number of frames in the file: the container's figure when it states one (known at once), else counted by
    /// decoding the whole file, once, the first time it is asked. A read that reaches the end of the audio before the
    /// stated length corrects it to the frames decoded.
    ///
    /// - Throws: what `read(maximumFrames:)` throws, when it decodes.
    public var frameCount: Int {
        get throws {
            if let length { return length }
            let counter = try FFmpegDecoder(url: url, output: .streamFormat)
            var samples = 0
            while let chunk = try counter.read(minimumSampleCount: 10 * Self.decodeChunk) { samples += chunk.count }
            length = samples / channelCount
            return samples / channelCount
        }
    }

    /// Decodes and returns up to `maximumFrames` frames from the current position on, interleaved
    /// (`channelCount` samples per frame); fewer only at the end of the audio.
    ///
    /// - Returns: The frames; nil at the end of the audio (and on every later call, until a seek back).
    /// - Throws: `AudioSourceError.corruptFile` when the file yields no audio at all because its data does not
    ///   decode, `.unreadableFile` on an I/O error.
    public func read(maximumFrames: Int) throws -> [Float]? {
        precondition(maximumFrames > 0, "maximumFrames must be positive")
        let end = position + min(maximumFrames, Int.max - position)
        try decode(through: end)
        let frames = buffer.frames(position..<end)
        guard !frames.isEmpty else { return nil }
        position += frames.count / channelCount
        return frames
    }

    /// Makes `frame` the first frame the next read returns: exactly the frame at that index from the start. A frame
    /// at or past the end makes the next read return nil.
    ///
    /// - Throws: what `read(maximumFrames:)` throws, as seeking decodes; `AudioSourceError.corruptFile` when the file
    ///   changed its format since it was opened.
    public func seek(toFrame frame: Int) throws {
        precondition(frame >= 0, "A frame index is not negative")
        if frame < buffer.start {
            try restart()
        }
        var reached = buffer.end
        while reached < frame, !decoderEnded {
            buffer.discard(before: reached)
            try decode(through: min(frame, reached + Self.decodeChunk / channelCount))
            reached = buffer.end
        }
        position = frame
    }

    /// Decodes until the buffer holds frame `end - 1`, or the audio ends; when it must decode, the frames before the
    /// position (those of earlier reads) are dropped first.
    private func decode(through end: Int) throws {
        guard buffer.end < end, !decoderEnded else { return }
        buffer.discard(before: position)
        while buffer.end < end, !decoderEnded {
            let (missing, overflow) = (end - buffer.end).multipliedReportingOverflow(by: channelCount)
            let wanted = overflow ? Int.max : max(Self.decodeChunk, missing)
            guard let samples = try decoder.read(minimumSampleCount: wanted) else {
                finish()
                return
            }
            let frames = samples.count / channelCount
            let kept = length.map { min(frames, max(0, $0 - decodedFrames)) } ?? frames
            buffer.append(samples[..<(kept * channelCount)])
            decodedFrames += frames
            if let length, decodedFrames >= length { decoderEnded = true }
        }
    }

    /// The audio has ended: the length is what was decoded, if that is less than the container said.
    private func finish() {
        decoderEnded = true
        length = min(length ?? decodedFrames, decodedFrames)
    }

    /// Opens the file again, to decode it from the start.
    private func restart() throws {
        let fresh = try FFmpegDecoder(url: url, output: .streamFormat)
        guard fresh.sampleRate == sampleRate, fresh.channelCount == channelCount else {
            throw AudioSourceError.corruptFile(
                path: url.path,
                reason: "The file changed while it was read: it now holds \(fresh.channelCount)-channel audio at \(fresh.sampleRate) Hz.")
        }
        decoder = fresh
        buffer = FrameBuffer(channels: channelCount)
        decodedFrames = 0
        decoderEnded = false
    }
}

/// Interleaved frames held in memory, `start..<end` of a stream.
private struct FrameBuffer {
    /// Samples per frame.
    let channels: Int
    private var samples: [Float] = []
    /// The index of the first frame held.
    private(set) var start = 0
    /// The index after the last frame held.
    var end: Int { start + samples.count / channels }

    init(channels: Int) {
        self.channels = channels
    }

    /// Appends whole interleaved frames.
    mutating func append(_ more: ArraySlice<Float>) {
        samples += more
    }

    /// The frames of `range`, as far as they are held, interleaved.
    func frames(_ range: Range<Int>) -> [Float] {
        let first = max(range.lowerBound, start), last = min(range.upperBound, end)
        guard first < last else { return [] }
        return Array(samples[((first - start) * channels)..<((last - start) * channels)])
    }

    /// Forgets the frames before `frame`.
    mutating func discard(before frame: Int) {
        let count = min(max(0, frame - start), end - start)
        samples.removeFirst(count * channels)
        start += count
    }
}
