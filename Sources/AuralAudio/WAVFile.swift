import Foundation

/// A WAV file: its header, and its samples on demand.
///
/// ```swift
/// let wav = try WAVFile(url: URL(fileURLWithPath: "speech.wav"))
/// print(wav.sampleRate, wav.channelCount, wav.encoding, wav.duration)
/// let interleaved = wav.interleavedSamples()   // Float in -1...1, frame by frame
/// ```
///
/// Reads RIFF/WAVE and RF64 files holding PCM (8-bit unsigned, 16-, 24- or 32-bit signed) or IEEE float
/// (32- or 64-bit), plain or as WAVE_FORMAT_EXTENSIBLE, at any sample rate and channel count. Chunks other
/// than `fmt `, `data` and `ds64` are skipped, with RIFF's padding byte after odd-sized chunks.
///
/// The data chunk is read the way FFmpeg's WAV demuxer reads it:
/// - a declared size of 0xFFFFFFFF or 0 (a stream written before its length was known) means "to the end";
/// - a file shorter than its declared data size gives the samples that are there, and `isTruncated` is
///   true, rather than an error;
/// - a partial frame at the end is dropped.
///
/// The file is memory-mapped, not copied, so opening a long recording is cheap.
///
/// - Note: One deliberate difference from FFmpeg: WAVE_FORMAT_EXTENSIBLE integer PCM with 24 valid bits in
///   32-bit samples is read here as 32-bit PCM; FFmpeg (5.1 and 8.0) decodes it as `pcm_f24le`, which turns
///   such files into noise.
public struct WAVFile: Sendable {
    /// How samples are stored in the file.
    public enum Encoding: Sendable, Equatable, CustomStringConvertible {
        /// 8-bit unsigned PCM, 128 is silence.
        case unsignedInt8
        /// 16-bit signed little-endian PCM.
        case signedInt16
        /// 24-bit signed little-endian PCM, three bytes per sample.
        case signedInt24
        /// 32-bit signed little-endian PCM.
        case signedInt32
        /// 32-bit IEEE float.
        case float32
        /// 64-bit IEEE float.
        case float64

        /// Bytes one sample takes in the file.
        public var bytesPerSample: Int {
            switch self {
            case .unsignedInt8: return 1
            case .signedInt16: return 2
            case .signedInt24: return 3
            case .signedInt32, .float32: return 4
            case .float64: return 8
            }
        }

        /// A short name, such as "16-bit PCM" or "32-bit float".
        public var description: String {
            switch self {
            case .unsignedInt8: return "8-bit PCM"
            case .signedInt16: return "16-bit PCM"
            case .signedInt24: return "24-bit PCM"
            case .signedInt32: return "32-bit PCM"
            case .float32: return "32-bit float"
            case .float64: return "64-bit float"
            }
        }
    }

    /// Where the file was read from.
    public let url: URL
    /// Frames per second, in hertz.
    public let sampleRate: Int
    /// Samples per frame (1 for mono, 2 for stereo, …).
    public let channelCount: Int
    /// How each sample is stored.
    public let encoding: Encoding
    /// Whole frames of audio available in the file.
    public let frameCount: Int
    /// True when the file ends before the end its data chunk declares; the frames that are there are read.
    public let isTruncated: Bool

    /// Length of the audio in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// The WAVE_FORMAT_EXTENSIBLE speaker mask, when the file has one.
    let channelMask: UInt32?
    private let bytes: Data
    private let dataStart: Int

    /// Reads the header of the WAV file at `url`; samples are read later, on demand.
    ///
    /// - Throws: `AudioSourceError` when the file is missing, unreadable, empty, not RIFF/WAVE, cut off
    ///   inside its header, inconsistent, or encoded in a way this type does not decode (such as ADPCM).
    public init(url: URL) throws {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AudioSourceError.fileNotFound(path: path)
        }
        guard !isDirectory.boolValue else {
            throw AudioSourceError.unreadableFile(path: path, reason: "The path is a directory.")
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw AudioSourceError.unreadableFile(path: path, reason: error.localizedDescription)
        }
        try self.init(bytes: bytes, url: url)
    }

    /// Parses a whole WAV file already in memory; `url` is only used to name the file in errors.
    init(bytes: Data, url: URL) throws {
        // Work on a copy indexed from 0 (a no-op for a freshly read or mapped `Data`).
        let bytes = bytes.startIndex == 0 ? bytes : Data(bytes)
        let header = try bytes.withUnsafeBytes { try Header(reader: ByteReader(raw: $0), path: url.path) }
        self.url = url
        self.bytes = bytes
        self.sampleRate = header.format.sampleRate
        self.channelCount = header.format.channelCount
        self.encoding = header.format.encoding
        self.channelMask = header.format.channelMask
        self.dataStart = header.dataStart
        self.frameCount = header.dataByteCount / (header.format.encoding.bytesPerSample * header.format.channelCount)
        self.isTruncated = header.isTruncated
    }

    /// All samples as `Float`, interleaved frame by frame, scaled to -1...1.
    ///
    /// Integer samples are divided by 2^(bits-1) (8-bit samples have 128 subtracted first); float samples are
    /// passed through unchanged, so out-of-range float values stay out of range.
    public func interleavedSamples() -> [Float] {
        let count = frameCount * channelCount
        let start = dataStart
        return bytes.withUnsafeBytes { raw in
            let reader = ByteReader(raw: raw)
            switch encoding {
            case .unsignedInt8:
                return (0..<count).map { (Float(reader.uint8(at: start + $0)) - 128) / 128 }
            case .signedInt16:
                return (0..<count).map { Float(reader.int16(at: start + 2 * $0)) / 32_768 }
            case .signedInt24:
                return (0..<count).map { Float(reader.int24(at: start + 3 * $0)) / 8_388_608 }
            case .signedInt32:
                return (0..<count).map { Float(reader.int32(at: start + 4 * $0)) / 2_147_483_648 }
            case .float32:
                return (0..<count).map { reader.float32(at: start + 4 * $0) }
            case .float64:
                return (0..<count).map { Float(reader.float64(at: start + 8 * $0)) }
            }
        }
    }

    /// The audio converted to 16 kHz mono, exactly as faster-whisper's `decode_audio` converts it.
    ///
    /// Samples go to libswresample in the format FFmpeg's PCM decoders give it (24-bit widened to 32-bit),
    /// because the resampler's arithmetic depends on the input format.
    func mono16kSamples() throws -> [Float] {
        let converter = try makeConverter()
        let framesPerChunk = 1 << 16
        var output: [Float] = []
        output.reserveCapacity(Int(duration * Double(AudioConverter.outputSampleRate)) + 1)
        var frame = 0
        while frame < frameCount {
            let frames = min(framesPerChunk, frameCount - frame)
            output += convert(frames: frame..<(frame + frames), with: converter)
            frame += frames
        }
        output += converter.flush()
        return output
    }

    /// Passes a range of frames to `converter` in its native sample format.
    private func convert(frames: Range<Int>, with converter: AudioConverter) -> [Float] {
        let first = dataStart + frames.lowerBound * channelCount * encoding.bytesPerSample
        let byteCount = frames.count * channelCount * encoding.bytesPerSample
        return bytes.withUnsafeBytes { raw in
            Self.convert(UnsafeRawBufferPointer(rebasing: raw[first..<(first + byteCount)]), encoding: encoding, with: converter)
        }
    }

    /// Passes whole samples stored in the file's `encoding` to `converter` in the converter's sample format.
    static func convert(_ raw: UnsafeRawBufferPointer, encoding: Encoding, with converter: AudioConverter) -> [Float] {
        let reader = ByteReader(raw: raw)
        let count = raw.count / encoding.bytesPerSample
        func feed<T>(_ samples: [T]) -> [Float] {
            samples.withUnsafeBytes { converter.convert(rawFrames: $0) }
        }
        switch encoding {
        case .unsignedInt8:
            return feed((0..<count).map { reader.uint8(at: $0) })
        case .signedInt16:
            return feed((0..<count).map { reader.int16(at: 2 * $0) })
        case .signedInt24:
            // FFmpeg's pcm_s24le decoder puts the 24 bits in the top of a 32-bit sample.
            return feed((0..<count).map { reader.int24(at: 3 * $0) << 8 })
        case .signedInt32:
            return feed((0..<count).map { reader.int32(at: 4 * $0) })
        case .float32:
            return feed((0..<count).map { reader.float32(at: 4 * $0) })
        case .float64:
            return feed((0..<count).map { reader.float64(at: 8 * $0) })
        }
    }

    /// A converter for this file's samples, as FFmpeg's PCM decoder would hand them to libswresample.
    func makeConverter() throws -> AudioConverter {
        try AudioConverter(
            inputSampleRate: sampleRate, inputChannelCount: channelCount,
            sampleFormat: encoding.converterFormat, channelMask: channelMask
        )
    }

    /// Byte offset of the first sample in the file.
    var dataOffset: Int { dataStart }

    /// Says what a non-WAV file looks like, from its first bytes.
    fileprivate static func describeSignature(of reader: ByteReader) -> String {
        let head = reader.tag(at: 0)
        let known: [(signature: String, name: String)] = [
            ("ID3", "an MP3 file"), ("fLaC", "a FLAC file"), ("OggS", "an Ogg file"), ("FORM", "an AIFF file"),
            ("caff", "a CAF file"),
        ]
        if head == "RIFF" {
            return "It is a RIFF file of type \"\(reader.tag(at: 8))\", not WAVE."
        }
        if let match = known.first(where: { head.hasPrefix($0.signature) }) {
            return "It looks like \(match.name), not RIFF/WAVE."
        }
        if reader.count >= 8, reader.tag(at: 4) == "ftyp" {
            return "It looks like an MP4/M4A file, not RIFF/WAVE."
        }
        if reader.count >= 2, reader.uint8(at: 0) == 0xFF, reader.uint8(at: 1) & 0xE0 == 0xE0 {
            return "It looks like MPEG audio (MP3), not RIFF/WAVE."
        }
        let hex = (0..<min(4, reader.count)).map { String(format: "%02X", reader.uint8(at: $0)) }
        return "It starts with the bytes \(hex.joined(separator: " ")), not \"RIFF\"…\"WAVE\"."
    }
}

/// Where the audio is in a WAV file, found by walking its chunks.
private struct Header {
    var format: FormatChunk
    var dataStart: Int
    /// Bytes of audio present in the file (before dropping a partial frame).
    var dataByteCount: Int
    var isTruncated: Bool

    init(reader: ByteReader, path: String) throws {
        guard reader.count > 0 else { throw AudioSourceError.emptyFile(path: path) }
        let magic = reader.tag(at: 0)
        guard reader.count >= 12 else {
            if "RIFF".hasPrefix(magic) || "RF64".hasPrefix(magic) { throw AudioSourceError.truncated(path: path) }
            throw AudioSourceError.notAudio(path: path, reason: WAVFile.describeSignature(of: reader))
        }
        guard magic == "RIFF" || magic == "RF64", reader.tag(at: 8) == "WAVE" else {
            throw AudioSourceError.notAudio(path: path, reason: WAVFile.describeSignature(of: reader))
        }

        var format: FormatChunk?
        var data: (start: Int, declaredSize: UInt64)?
        var rf64DataSize: UInt64?
        var endedInsideChunk = false
        var offset = 12
        while offset < reader.count {
            guard offset + 8 <= reader.count else {
                endedInsideChunk = true
                break
            }
            let id = reader.tag(at: offset)
            let size = Int(reader.uint32(at: offset + 4))
            let body = offset + 8
            let fitsInFile = size <= reader.count - body
            switch id {
            case "fmt ":
                guard fitsInFile else { throw AudioSourceError.truncated(path: path) }
                format = try FormatChunk(reader: reader, offset: body, size: size, path: path)
            case "ds64" where size >= 16 && fitsInFile:
                rf64DataSize = reader.uint64(at: body + 8)
            case "data":
                data = (body, UInt64(size))
            default:
                break
            }
            // Stop at the audio once the format is known, or when a chunk runs past the end of the file.
            if data != nil && (format != nil || !fitsInFile) { break }
            guard fitsInFile else {
                endedInsideChunk = true
                break
            }
            offset = body + size + (size & 1)
        }

        guard let format else {
            if endedInsideChunk || data == nil { throw AudioSourceError.truncated(path: path) }
            throw AudioSourceError.invalidHeader(path: path, reason: "The file has a \"data\" chunk but no \"fmt \" chunk.")
        }
        guard let data else { throw AudioSourceError.truncated(path: path) }

        var declaredSize = data.declaredSize
        if declaredSize == 0xFFFF_FFFF, magic == "RF64", let rf64DataSize { declaredSize = rf64DataSize }
        let available = UInt64(reader.count - data.start)
        // Streaming writers leave the size at 0xFFFFFFFF or 0; FFmpeg then reads to the end, and so do we.
        let readsToEnd = declaredSize == 0xFFFF_FFFF || declaredSize == 0
        self.format = format
        self.dataStart = data.start
        self.dataByteCount = Int(readsToEnd ? available : min(declaredSize, available))
        self.isTruncated = !readsToEnd && declaredSize > available
    }
}

/// The contents of a `fmt ` chunk that matter for decoding.
private struct FormatChunk {
    var encoding: WAVFile.Encoding
    var channelCount: Int
    var sampleRate: Int
    var channelMask: UInt32?

    /// The tail shared by every KSDATAFORMAT_SUBTYPE GUID whose first two bytes are a WAVE format code.
    private static let standardSubformatTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]

    init(reader: ByteReader, offset: Int, size: Int, path: String) throws {
        guard size >= 16 else {
            throw AudioSourceError.invalidHeader(path: path, reason: "The \"fmt \" chunk is \(size) bytes; it needs at least 16.")
        }
        var formatCode = reader.uint16(at: offset)
        channelCount = Int(reader.uint16(at: offset + 2))
        sampleRate = Int(reader.uint32(at: offset + 4))
        let bitsPerSample = Int(reader.uint16(at: offset + 14))
        channelMask = nil

        if formatCode == 0xFFFE {
            guard size >= 40 else {
                throw AudioSourceError.invalidHeader(
                    path: path, reason: "The WAVE_FORMAT_EXTENSIBLE \"fmt \" chunk is \(size) bytes; it needs 40.")
            }
            channelMask = reader.uint32(at: offset + 20)
            let subformat = (0..<16).map { reader.uint8(at: offset + 24 + $0) }
            guard Array(subformat[2...]) == Self.standardSubformatTail else {
                let guid = subformat.map { String(format: "%02X", $0) }.joined()
                throw AudioSourceError.unsupportedEncoding(path: path, format: "WAVE_FORMAT_EXTENSIBLE sub-format \(guid)")
            }
            formatCode = UInt16(subformat[0]) | UInt16(subformat[1]) << 8
        }

        guard channelCount > 0 else {
            throw AudioSourceError.invalidHeader(path: path, reason: "The header says the audio has 0 channels.")
        }
        guard sampleRate > 0 else {
            throw AudioSourceError.invalidHeader(path: path, reason: "The header says the sample rate is 0 Hz.")
        }
        encoding = try Self.encoding(formatCode: formatCode, bitsPerSample: bitsPerSample, path: path)
    }

    /// Maps a format code and sample size to an encoding as FFmpeg does: integer PCM is stored in whole
    /// bytes, so 12-bit samples are read as 16-bit and 20-bit as 24-bit.
    private static func encoding(formatCode: UInt16, bitsPerSample: Int, path: String) throws -> WAVFile.Encoding {
        switch (formatCode, bitsPerSample) {
        case (0x0001, 1...8): return .unsignedInt8
        case (0x0001, 9...16): return .signedInt16
        case (0x0001, 17...24): return .signedInt24
        case (0x0001, 25...32): return .signedInt32
        case (0x0003, 32): return .float32
        case (0x0003, 64): return .float64
        case (0x0001, _), (0x0003, _):
            let kind = formatCode == 1 ? "PCM" : "IEEE float"
            throw AudioSourceError.unsupportedEncoding(path: path, format: "\(bitsPerSample)-bit \(kind)")
        default:
            let code = String(format: "0x%04X", formatCode)
            let name = knownFormatNames[formatCode].map { "\($0) (format code \(code))" } ?? "format code \(code)"
            throw AudioSourceError.unsupportedEncoding(path: path, format: name)
        }
    }

    private static let knownFormatNames: [UInt16: String] = [
        0x0002: "Microsoft ADPCM", 0x0006: "A-law", 0x0007: "µ-law", 0x0011: "IMA ADPCM", 0x0031: "GSM 6.10",
        0x0050: "MPEG audio", 0x0055: "MP3", 0x0161: "Windows Media Audio", 0x2000: "AC-3", 0xF1AC: "FLAC",
    ]
}

private extension WAVFile.Encoding {
    /// The sample format FFmpeg's decoder for this encoding produces.
    var converterFormat: PCMSampleFormat {
        switch self {
        case .unsignedInt8: return .unsignedInt8
        case .signedInt16: return .signedInt16
        case .signedInt24, .signedInt32: return .signedInt32
        case .float32: return .float32
        case .float64: return .float64
        }
    }
}

/// Little-endian reads at byte offsets of a buffer; offsets are checked by the callers.
private struct ByteReader {
    let raw: UnsafeRawBufferPointer

    var count: Int { raw.count }

    func uint8(at offset: Int) -> UInt8 { raw[offset] }

    func uint16(at offset: Int) -> UInt16 { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }

    func uint32(at offset: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }

    func uint64(at offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }

    func int16(at offset: Int) -> Int16 { Int16(bitPattern: uint16(at: offset)) }

    func int32(at offset: Int) -> Int32 { Int32(bitPattern: uint32(at: offset)) }

    /// A 24-bit sample sign-extended to 32 bits.
    func int24(at offset: Int) -> Int32 {
        let raw = UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1]) << 16 | UInt32(raw[offset + 2]) << 24
        return Int32(bitPattern: raw) >> 8
    }

    func float32(at offset: Int) -> Float { Float(bitPattern: uint32(at: offset)) }

    func float64(at offset: Int) -> Double { Double(bitPattern: uint64(at: offset)) }

    /// Up to four bytes as Latin-1 text, for chunk identifiers and signatures.
    func tag(at offset: Int) -> String {
        let end = min(offset + 4, raw.count)
        guard offset < end else { return "" }
        return String(raw[offset..<end].map { Character(Unicode.Scalar($0)) })
    }
}
