import AuralAudio
import Synchronization

/// An audio file to read frames from, or a WAV file to write frames to.
///
/// ```swift
/// let file = try AVAudioFile(forReading: URL(fileURLWithPath: "talk.wav"))
/// let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_096)!
/// while file.framePosition < file.length {
///     try file.read(into: buffer)            // buffer.frameLength frames, in processingFormat
/// }
/// ```
///
/// Reading: `fileFormat` is the format of the samples in the file; `processingFormat` is the format buffers are read
/// in: by default the standard format (32-bit float, deinterleaved) at the file's own rate and channel count. At the
/// end of the file a read gives 0 frames (`frameLength` 0) and does not throw, as on Apple's current systems. Every
/// file is read at its own rate and channel count: WAV files by AuralAudio's `WAVFile` reader, with their own sample
/// type; other files (FLAC, MP3, M4A, Opus, the sound of a video, anything FFmpeg reads, WAV files in encodings such as
/// µ-law or ADPCM too) by AuralAudio's `AudioFileDecoder`, which gives the codec's samples as `Float`, unmixed and
/// unresampled, and seeks exactly.
///
/// Writing: the file is always RIFF/WAVE, whatever the URL's extension (FFmpeg, and this class, read it by its
/// content), with 16-, 24- or 32-bit integer or 32- or 64-bit float samples as the settings say. Its header is brought
/// up to date after every `write(from:)`, so the file is complete and valid at all times, and `close()` is optional.
///
/// Errors are `NSError`s in Apple's domain "com.apple.coreaudio.avfaudio" with Core Audio's codes (-43 for a missing
/// file, 'typ?' for a file that is not audio, 'dta?' for a damaged one, 'prm?' for a path that cannot be written,
/// 'fmt?' for unsupported settings, -50 for a buffer of the wrong format), each with a description, the reason and a
/// recovery suggestion.
///
/// Differences from Apple's:
/// - A compressed file's `fileFormat` is the format of its decoded samples, 32-bit float (the same as the default
///   `processingFormat`), since `AVAudioFormat` describes linear PCM only.
/// - A compressed file's `length` is the container's figure where it states one (FLAC, MP3 with a Xing or LAME header,
///   Ogg, MP4/M4A), and reading stops there; where it does not (Matroska, WebM), the first call decodes the whole file.
///   If the audio ends before the stated length (a cut-off file), `length` becomes the frames decoded once a read
///   reaches the end.
/// - Setting `framePosition` on a compressed file decodes up to the new position (from the start of the file when it
///   moves back), so that reads start exactly there.
/// - Files are written as WAV only (no AAC, no CAF or AIFF container); `framePosition` does not move the writing point.
///
/// `Sendable`, as Apple's is on its current systems: every call takes the file's lock, so one file may be used from
/// several tasks, one call at a time. Reads and writes block on disk I/O and decoding.
public final class AVAudioFile: NSObject, Sendable {
    /// The file's location.
    public let url: URL
    /// The format of the samples in the file.
    public let fileFormat: AVAudioFormat
    /// The format of the buffers `read(into:)` fills and `write(from:)` takes.
    public let processingFormat: AVAudioFormat
    private let state: Mutex<State>

    /// What reading or writing changes: the decoder or writer (nil once closed) and the position.
    private struct State {
        var decoder: AudioFileDecoding?
        var writer: WAVWriter?
        var isOpen = true
        var position: AVAudioFramePosition = 0
        var seekPending = false
        var writtenFrames: AVAudioFramePosition = 0
    }

    /// Opens a file for reading; buffers come in the standard format at the file's rate and channel count.
    /// - Throws: an `NSError` when the file is missing, unreadable, not audio, or damaged (see the type's note).
    public convenience init(forReading fileURL: URL) throws {
        try self.init(reading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Opens a file for reading; buffers come as `format` samples, interleaved or not, at the file's rate and
    /// channel count.
    /// - Throws: as `init(forReading:)`; -50 for `.otherFormat`.
    public convenience init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        try self.init(reading: fileURL, commonFormat: format, interleaved: interleaved)
    }

    /// Creates (or replaces) a WAV file of the format `settings` describe (`AVSampleRateKey`, `AVNumberOfChannelsKey`,
    /// `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`); buffers to write are in the standard format at that rate and
    /// channel count.
    /// - Throws: 'fmt?' for settings that are not linear PCM this class writes (AAC, big-endian, 8-bit, …); -43, 'prm?'
    ///   or 'wht?' when the path cannot be written.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(writing: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// As `init(forWriting:settings:)`, with buffers to write in `format` samples, interleaved or not.
    public convenience init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat,
                            interleaved: Bool) throws {
        try self.init(writing: fileURL, settings: settings, commonFormat: format, interleaved: interleaved)
    }

    private init(reading url: URL, commonFormat: AVAudioCommonFormat, interleaved: Bool) throws {
        let decoder = try Self.openDecoder(url)
        let file = decoder.fileFormat
        guard let processing = AVAudioFormat(
            commonFormat: commonFormat, sampleRate: file.sampleRate, channels: file.channelCount, interleaved: interleaved)
        else { throw Self.noProcessingFormat(commonFormat) }
        self.url = url
        fileFormat = file
        processingFormat = processing
        state = Mutex(State(decoder: decoder))
        super.init()
    }

    private init(writing url: URL, settings: [String: Any], commonFormat: AVAudioCommonFormat, interleaved: Bool) throws {
        guard let pcm = PCMSettings(settings), let file = AVAudioFormat(settings: settings) else {
            let reason = PCMSettings.problem(in: settings) ?? "The settings describe no linear PCM format."
            throw AVAudioError.make(
                AVAudioError.Code.unsupportedDataFormat, "Cannot write audio files with these settings.", reason: reason,
                suggestion: "Give AVSampleRateKey and AVNumberOfChannelsKey, with 16-, 24- or 32-bit integers or 32-bit floats.",
                path: url.path)
        }
        guard let processing = AVAudioFormat(
            commonFormat: commonFormat, sampleRate: file.sampleRate, channels: file.channelCount, interleaved: interleaved)
        else { throw Self.noProcessingFormat(commonFormat) }
        state = Mutex(State(writer: try WAVWriter(url: url, pcm: pcm)))
        self.url = url
        fileFormat = AVAudioFormat(sampleRate: file.sampleRate, channelCount: file.channelCount, commonFormat: file.commonFormat,
                                   isInterleaved: true, bitsPerChannel: pcm.bitDepth, isFloat: pcm.isFloat)
        processingFormat = processing
        super.init()
    }

    deinit {
        close()
    }

    /// Whether the file is open (true until `close()`).
    public var isOpen: Bool {
        state.withLock { $0.isOpen }
    }

    /// Frames in the file (for a file being written, frames written so far). For a compressed file whose container does
    /// not state its length, the first call decodes the whole file (as Apple warns, it "can be computationally
    /// expensive"); 0 when that fails. See the type's note for a file that ends before its stated length.
    public var length: AVAudioFramePosition {
        state.withLock { state in
            if state.writer != nil { return state.writtenFrames }
            return (try? state.decoder?.frameCount()) ?? state.writtenFrames
        }
    }

    /// The frame the next read starts at; setting it seeks (when reading). Reading moves it on by the frames read.
    public var framePosition: AVAudioFramePosition {
        get { state.withLock { $0.position } }
        set {
            state.withLock { state in
                guard state.writer == nil else { return }
                state.position = max(0, newValue)
                state.seekPending = true
            }
        }
    }

    /// Reads up to `buffer.frameCapacity` frames from `framePosition` on; `buffer.frameLength` says how many were read
    /// (0 at the end of the file).
    /// - Throws: -50 when the buffer's format is not `processingFormat`, -38 after `close()`, 'dta?' when the file's
    ///   data cannot be decoded.
    public func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames from `framePosition` on; `buffer.frameLength` says how many were read (0 at the end
    /// of the file).
    /// - Throws: as `read(into:)`; -50 also when `frames` exceeds the buffer's capacity.
    public func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        try checkFormat(of: buffer, reading: true)
        guard frames <= buffer.frameCapacity else {
            throw AVAudioError.parameter(
                "Cannot read \(frames) frames into a buffer of \(buffer.frameCapacity).",
                reason: "frameCount must not exceed the buffer's frameCapacity.")
        }
        try state.withLock { state in
            guard state.isOpen, let decoder = state.decoder else { throw notOpen(state, reading: true) }
            do {
                if state.seekPending {
                    try decoder.seek(to: state.position)
                    state.seekPending = false
                }
                let samples = try decoder.read(frames: Int(frames))
                let count = samples.count / Int(processingFormat.channelCount)
                buffer.storeInterleaved(samples, at: 0)
                buffer.frameLength = AVAudioFrameCount(count)
                state.position += AVAudioFramePosition(count)
            } catch let error as AudioSourceError {
                throw AVAudioError.file(error, path: url.path)
            }
        }
    }

    /// Appends the buffer's `frameLength` frames to the file, and updates its header.
    /// - Throws: -50 when the buffer's format is not `processingFormat`, -38 after `close()` or on a file opened for
    ///   reading, 'wht?' when the disk refuses the write.
    public func write(from buffer: AVAudioPCMBuffer) throws {
        try checkFormat(of: buffer, reading: false)
        let frames = Int(buffer.frameLength)
        let samples = buffer.interleavedFloats(frames: 0..<frames)
        try state.withLock { state in
            guard state.isOpen, let writer = state.writer else { throw notOpen(state, reading: false) }
            try writer.append(samples)
            state.writtenFrames += AVAudioFramePosition(frames)
            state.position = state.writtenFrames
        }
    }

    /// Closes the file; reads and writes throw afterwards. A written file is complete before this already.
    public func close() {
        state.withLock { state in
            guard state.isOpen else { return }
            state.isOpen = false
            state.decoder = nil
            try? state.writer?.close()
            state.writer = nil
        }
    }

    /// A WAV decoder at the file's own format for RIFF/RF64 WAVE files of the encodings `WAVFile` reads, else AuralAudio's
    /// FFmpeg decoder at the stream's own format (which also reports missing, unreadable and non-audio files).
    private static func openDecoder(_ url: URL) throws -> AudioFileDecoding {
        do {
            let head = FileHandle(forReadingAtPath: url.path).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 12)
            } ?? Data()
            let bytes = [UInt8](head)
            if bytes.count == 12, ["RIFF", "RF64"].contains(String(decoding: bytes[0..<4], as: UTF8.self)),
               String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" {
                do {
                    return try WAVDecoder(url: url)
                } catch AudioSourceError.unsupportedEncoding {
                    // A-law, µ-law, ADPCM, …: FFmpeg decodes them.
                    return try StreamDecoder(url: url)
                }
            }
            return try StreamDecoder(url: url)
        } catch let error as AudioSourceError {
            throw AVAudioError.file(error, path: url.path)
        }
    }

    private func checkFormat(of buffer: AVAudioPCMBuffer, reading: Bool) throws {
        guard !buffer.format.isCompatible(with: processingFormat) else { return }
        throw AVAudioError.parameter(
            "The buffer's format does not match the file's processing format.",
            reason: "The buffer is \(buffer.format); \(reading ? "reading" : "writing") \(url.lastPathComponent) takes \(processingFormat).",
            suggestion: "Make the buffer with AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity:).")
    }

    /// Why a read (or a write) cannot be done: the file is closed, or open the other way.
    private func notOpen(_ state: State, reading: Bool) -> NSError {
        let description = state.isOpen
            ? "\(url.lastPathComponent) was opened for \(reading ? "writing" : "reading")." : "\(url.lastPathComponent) is closed."
        return AVAudioError.make(
            AVAudioError.Code.notOpen, description,
            reason: state.isOpen ? "A file opened with init(forReading:) cannot be written, nor one opened for writing read."
                : "close() was called on the file.",
            suggestion: "Open the file again with AVAudioFile(forReading:) or AVAudioFile(forWriting:settings:).", path: url.path)
    }

    private static func noProcessingFormat(_ format: AVAudioCommonFormat) -> NSError {
        AVAudioError.parameter(
            "Buffers cannot hold \(format.name) samples.", reason: "The processing format must be a common PCM format.",
            suggestion: "Use .pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16 or .pcmFormatInt32.")
    }
}
