import Foundation

/// Reads an audio or video file's sound as 16 kHz mono `Float` samples, a chunk at a time.
///
/// ```swift
/// let reader = try AudioFileReader(url: URL(fileURLWithPath: "talk.m4a"))
/// print(reader.duration ?? 0, "seconds")          // from the container, before decoding
/// while let chunk = try reader.read() {            // about `chunkSampleCount` samples at 16 kHz
///     process(chunk)
/// }
/// ```
///
/// Any file FFmpeg's libraries read is accepted (WAV, FLAC, MP3, Ogg Vorbis/Opus, M4A/AAC, WebM, the audio
/// track of MP4/MKV/MOV video, …); the first audio stream is decoded, every channel mixed down, and the
/// result resampled to 16 kHz exactly as faster-whisper's `decode_audio` does it, so the samples (and the
/// transcripts) equal faster-whisper's on the same file, up to the decoder differences between FFmpeg
/// versions that `FFmpegDecoder` lists. WAV files are read by `WAVFile`, bit-identical to faster-whisper,
/// without FFmpeg's demuxer.
///
/// Memory stays bounded whatever the file's length: only one chunk, and FFmpeg's current packet and frame,
/// are held. Opening the same file twice (for example a first pass over the whole file, then a second one)
/// gives two independent readers that return the same samples.
///
/// - Note: Not thread-safe, and `read()` blocks on file I/O and decoding: drive a reader from one dedicated
///   thread (or a serial `DispatchQueue`), never from Swift's cooperative pool.
public final class AudioFileReader {
    /// The file being read.
    public let url: URL
    /// The audio's length in seconds as the file states it, known before decoding; nil when the container
    /// does not say (the decoded length can differ slightly, by the codec's padding).
    public let duration: TimeInterval?
    /// Samples at 16 kHz that each `read()` returns, but for the last chunk.
    public let chunkSampleCount: Int

    private let backend: Backend
    /// Output decoded but not yet returned, beyond a chunk.
    private var pending: [Float] = []
    private var ended = false

    private enum Backend {
        case wav(WAVChunks)
        case ffmpeg(FFmpegDecoder)
    }

    /// Opens `url` and reads its header; no audio is decoded yet.
    ///
    /// - Parameters:
    ///   - url: A local file.
    ///   - chunkSampleCount: Samples at 16 kHz per chunk, at least 1; the default, 160,000, is 10 seconds.
    /// - Throws: `AudioSourceError`: `.fileNotFound`, `.unreadableFile`, `.emptyFile`, `.notAudio` (not a
    ///   media file), `.noAudioTrack`, `.corruptFile` or `.truncated` (a damaged or cut-off header),
    ///   `.unsupportedCodec` or `.unsupportedEncoding`.
    public init(url: URL, chunkSampleCount: Int = 160_000) throws {
        precondition(chunkSampleCount > 0, "chunkSampleCount must be positive")
        self.url = url
        self.chunkSampleCount = chunkSampleCount
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AudioSourceError.fileNotFound(path: path)
        }
        guard !isDirectory.boolValue else {
            throw AudioSourceError.unreadableFile(path: path, reason: "The path is a directory.")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AudioSourceError.unreadableFile(path: path, reason: "Permission denied, or the file cannot be opened.")
        }
        let head: Data
        do {
            head = try handle.read(upToCount: 12) ?? Data()
            try handle.close()
        } catch {
            throw AudioSourceError.unreadableFile(path: path, reason: error.localizedDescription)
        }
        guard !head.isEmpty else { throw AudioSourceError.emptyFile(path: path) }

        if Self.isWAV(head) {
            let chunks = try WAVChunks(wav: WAVFile(url: url))
            backend = .wav(chunks)
            duration = chunks.wav.duration
        } else {
            let decoder = try FFmpegDecoder(url: url)
            backend = .ffmpeg(decoder)
            duration = decoder.duration
        }
    }

    /// Decodes and returns the next chunk of 16 kHz mono samples in -1..<1.
    ///
    /// Every chunk but the last has exactly `chunkSampleCount` samples.
    ///
    /// - Returns: The next chunk; nil after the last one (and on every later call).
    /// - Throws: `AudioSourceError.corruptFile` when the file yields no audio at all because its data does
    ///   not decode, `.unreadableFile` on an I/O error.
    public func read() throws -> [Float]? {
        while !ended, pending.count < chunkSampleCount {
            let next: [Float]?
            switch backend {
            case .wav(let chunks): next = try chunks.read(minimumSampleCount: chunkSampleCount)
            case .ffmpeg(let decoder): next = try decoder.read(minimumSampleCount: chunkSampleCount)
            }
            if let next { pending += next } else { ended = true }
        }
        guard !pending.isEmpty else { return nil }
        let count = min(chunkSampleCount, pending.count)
        let chunk = Array(pending[..<count])
        pending.removeFirst(count)
        return chunk
    }

    /// Whether FFmpeg's own messages on standard error (warnings about damaged packets, probing notes) are
    /// silenced. Default false: AuralAudio leaves FFmpeg's log as the host set it.
    ///
    /// FFmpeg's log level is one setting for the whole process, so this changes it for every user of FFmpeg in
    /// the process, not only for AuralAudio: set it once at start, as a command-line tool does, and only if the
    /// application does not want FFmpeg's messages itself. Decoding is the same either way, and every problem
    /// that stops a file from being read is reported as an `AudioSourceError`. Setting it to false puts back
    /// FFmpeg's default level (info).
    public static var quietsFFmpegLog: Bool {
        get { FFmpegDecoder.isLogQuiet }
        set { FFmpegDecoder.isLogQuiet = newValue }
    }

    /// Whether a file starting with `head` goes to the WAV reader: RIFF/WAVE or RF64/WAVE, or too short to
    /// tell (so that a cut-off WAV header is reported as such).
    private static func isWAV(_ head: Data) -> Bool {
        let bytes = [UInt8](head)
        let magic = String(decoding: bytes.prefix(4), as: UTF8.self)
        guard "RIFF".hasPrefix(magic) || "RF64".hasPrefix(magic) else { return false }
        return bytes.count < 12 || String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE"
    }
}

/// A WAV file's samples read from disk a chunk at a time and converted like FFmpeg's PCM decoders' output.
private final class WAVChunks {
    let wav: WAVFile
    private let handle: FileHandle
    private let converter: AudioConverter
    private var nextFrame = 0
    private var flushed = false

    init(wav: WAVFile) throws {
        self.wav = wav
        converter = try wav.makeConverter()
        guard let handle = FileHandle(forReadingAtPath: wav.url.path) else {
            throw AudioSourceError.unreadableFile(path: wav.url.path, reason: "The file cannot be opened.")
        }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    func read(minimumSampleCount: Int) throws -> [Float]? {
        var output: [Float] = []
        let frameBytes = wav.channelCount * wav.encoding.bytesPerSample
        // Input frames that give about `minimumSampleCount` output samples.
        let framesPerRead = max(1, Int((Double(minimumSampleCount) * Double(wav.sampleRate) / 16_000).rounded(.up)))
        while output.count < minimumSampleCount, nextFrame < wav.frameCount {
            let frames = min(framesPerRead, wav.frameCount - nextFrame)
            let bytes: Data
            do {
                try handle.seek(toOffset: UInt64(wav.dataOffset + nextFrame * frameBytes))
                bytes = try handle.read(upToCount: frames * frameBytes) ?? Data()
            } catch {
                throw AudioSourceError.unreadableFile(path: wav.url.path, reason: error.localizedDescription)
            }
            let whole = bytes.count / frameBytes * frameBytes
            guard whole > 0 else {
                // The file shrank since its header was read.
                nextFrame = wav.frameCount
                break
            }
            output += bytes.withUnsafeBytes {
                WAVFile.convert(UnsafeRawBufferPointer(rebasing: $0[..<whole]), encoding: wav.encoding, with: converter)
            }
            nextFrame += whole / frameBytes
        }
        if nextFrame >= wav.frameCount, !flushed {
            output += converter.flush()
            flushed = true
        }
        return output.isEmpty && flushed ? nil : output
    }
}
