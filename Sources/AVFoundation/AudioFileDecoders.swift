import AuralAudio

/// What `AVAudioFile` reads through: a file's frames as interleaved `Float`, from any position.
protocol AudioFileDecoding: AnyObject {
    /// The format of the samples in the file.
    var fileFormat: AVAudioFormat { get }
    /// Frames in the file; may decode the whole file the first time it is asked.
    func frameCount() throws -> Int64
    /// Makes `frame` the next frame `read` returns (a frame past the end makes `read` return nothing).
    func seek(to frame: Int64) throws
    /// Up to `frames` frames from the current position, interleaved; fewer only at the end of the file.
    func read(frames: Int) throws -> [Float]
}

/// A WAV file at its own rate, channel count and sample encoding: AuralAudio's `WAVFile` checks the header and
/// tells the format; the samples are read from the mapped file a range at a time, decoded as `WAVFile` decodes them.
final class WAVDecoder: AudioFileDecoding {
    let fileFormat: AVAudioFormat
    private let wav: WAVFile
    private let bytes: Data
    private let dataOffset: Int
    private var position: Int64 = 0

    /// Opens the WAV file at `url`. Throws `AudioSourceError` as `WAVFile` does.
    init(url: URL) throws {
        wav = try WAVFile(url: url)
        do {
            bytes = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw AudioSourceError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        let frameBytes = wav.encoding.bytesPerSample * wav.channelCount
        guard let offset = Self.dataOffset(in: bytes), offset + wav.frameCount * frameBytes <= bytes.count else {
            throw AudioSourceError.invalidHeader(path: url.path, reason: "The \"data\" chunk could not be located.")
        }
        dataOffset = offset
        fileFormat = Self.format(of: wav)
    }

    func frameCount() -> Int64 {
        Int64(wav.frameCount)
    }

    func seek(to frame: Int64) {
        position = max(0, frame)
    }

    func read(frames: Int) -> [Float] {
        let count = Int(max(0, min(Int64(frames), Int64(wav.frameCount) - position)))
        let samples = count * wav.channelCount
        let width = wav.encoding.bytesPerSample
        let start = dataOffset + Int(position) * wav.channelCount * width
        position += Int64(count)
        return bytes.withUnsafeBytes { raw in
            func value<T: FixedWidthInteger>(_: T.Type, _ index: Int) -> T {
                T(littleEndian: raw.loadUnaligned(fromByteOffset: start + index * width, as: T.self))
            }
            switch wav.encoding {
            case .unsignedInt8: return (0..<samples).map { (Float(raw[start + $0]) - 128) / 128 }
            case .signedInt16: return (0..<samples).map { Float(value(Int16.self, $0)) / 32_768 }
            case .signedInt24: return (0..<samples).map { Float(Self.int24(raw, at: start + 3 * $0)) / 8_388_608 }
            case .signedInt32: return (0..<samples).map { Float(value(Int32.self, $0)) / 2_147_483_648 }
            case .float32: return (0..<samples).map { Float(bitPattern: value(UInt32.self, $0)) }
            case .float64: return (0..<samples).map { Float(Double(bitPattern: value(UInt64.self, $0))) }
            }
        }
    }

    private static func int24(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
        let bits = UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1]) << 16 | UInt32(raw[offset + 2]) << 24
        return Int32(bitPattern: bits) >> 8
    }

    /// Where the first "data" chunk's samples start, walking RIFF chunks (with their padding byte) from byte 12.
    private static func dataOffset(in bytes: Data) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            var offset = 12
            while offset + 8 <= raw.count {
                let size = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
                if raw[offset..<(offset + 4)].elementsEqual("data".utf8) { return offset + 8 }
                offset += 8 + size + (size & 1)
            }
            return nil
        }
    }

    /// The file's format: interleaved, in the common format of its encoding (8- and 24-bit integers are
    /// `.otherFormat`, as on Apple).
    private static func format(of wav: WAVFile) -> AVAudioFormat {
        let common: AVAudioCommonFormat
        switch wav.encoding {
        case .signedInt16: common = .pcmFormatInt16
        case .signedInt32: common = .pcmFormatInt32
        case .float32: common = .pcmFormatFloat32
        case .float64: common = .pcmFormatFloat64
        case .unsignedInt8, .signedInt24: common = .otherFormat
        }
        let isFloat = wav.encoding == .float32 || wav.encoding == .float64
        return AVAudioFormat(sampleRate: Double(wav.sampleRate), channelCount: AVAudioChannelCount(wav.channelCount),
                             commonFormat: common, isInterleaved: true, bitsPerChannel: wav.encoding.bytesPerSample * 8,
                             isFloat: isFloat)
    }
}

/// Any other file FFmpeg reads (FLAC, MP3, M4A, Opus, the sound of a video, …), at the stream's own rate and channel
/// count, through AuralAudio's `AudioFileDecoder`: the decoder's samples as `Float`, with exact seeking.
///
/// `AVAudioFormat` describes linear PCM only, so the file format is the format of the decoded samples: 32-bit float
/// at the stream's rate and channel count (where Apple's describes the compressed format).
final class StreamDecoder: AudioFileDecoding {
    let fileFormat: AVAudioFormat
    private let decoder: AudioFileDecoder

    /// Opens `url`; throws `AudioSourceError` as `AudioFileDecoder` does.
    init(url: URL) throws {
        decoder = try AudioFileDecoder(url: url)
        fileFormat = AVAudioFormat(sampleRate: Double(decoder.sampleRate), channelCount: AVAudioChannelCount(decoder.channelCount),
                                   commonFormat: .pcmFormatFloat32, isInterleaved: false)
    }

    func frameCount() throws -> Int64 {
        Int64(try decoder.frameCount)
    }

    func seek(to frame: Int64) throws {
        try decoder.seek(toFrame: Int(clamping: max(0, frame)))
    }

    func read(frames: Int) throws -> [Float] {
        guard frames > 0 else { return [] }
        return try decoder.read(maximumFrames: frames) ?? []
    }
}
