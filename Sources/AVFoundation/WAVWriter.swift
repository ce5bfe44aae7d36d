#if canImport(Glibc)
import Glibc
#endif

/// Writes a RIFF/WAVE file of linear PCM: 16-, 24- or 32-bit integers, or 32- or 64-bit floats, little-endian, with a
/// 16-byte "fmt " chunk (format code 1 or 3) and one "data" chunk.
///
/// The header's sizes are brought up to date after every `append`, so the file is a complete, valid WAV file between
/// calls: a reader opening it meanwhile sees every frame written so far.
final class WAVWriter {
    private let pcm: PCMSettings
    private let handle: FileHandle
    private let path: String
    private var dataByteCount = 0

    /// Bytes before the samples: "RIFF" header (12), "fmt " chunk (24), "data" chunk header (8).
    private static let headerSize = 44

    /// Creates (or empties) the file at `url` and writes its header. Throws an `AVAudioError` `NSError` saying why
    /// the path cannot be written.
    init(url: URL, pcm: PCMSettings) throws {
        self.pcm = pcm
        path = url.path
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.openError(errno, path: url.path) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try write(header(), at: 0)
    }

    /// Appends interleaved frames (`channelCount` samples each, `Float` in -1...1; integers are rounded and clipped)
    /// and updates the header.
    func append(_ interleaved: [Float]) throws {
        let encoded = encode(interleaved)
        guard Self.headerSize - 8 + dataByteCount + encoded.count <= Int(UInt32.max) else {
            throw AVAudioError.make(
                AVAudioError.Code.invalidFile, "The WAV file \(path) cannot grow past 4 GiB.",
                reason: "A RIFF/WAVE file's sizes are 32-bit numbers.", suggestion: "Write the audio to several files.", path: path)
        }
        try perform {
            try handle.seekToEnd()
            try handle.write(contentsOf: encoded)
        }
        dataByteCount += encoded.count
        try write(sizes(), at: 4)
        try write(UInt32(dataByteCount).littleEndianBytes, at: 40)
    }

    /// Closes the file; it is complete already.
    func close() throws {
        try perform { try handle.close() }
    }

    private func header() -> Data {
        let bytesPerSample = pcm.bitDepth / 8
        let channels = Int(pcm.channelCount)
        var data = Data("RIFF".utf8) + sizes() + Data("WAVEfmt ".utf8)
        data += UInt32(16).littleEndianBytes + UInt16(pcm.isFloat ? 3 : 1).littleEndianBytes
        data += UInt16(channels).littleEndianBytes + UInt32(pcm.sampleRate).littleEndianBytes
        data += UInt32(Int(pcm.sampleRate) * channels * bytesPerSample).littleEndianBytes
        data += UInt16(channels * bytesPerSample).littleEndianBytes + UInt16(pcm.bitDepth).littleEndianBytes
        return data + Data("data".utf8) + UInt32(dataByteCount).littleEndianBytes
    }

    /// The RIFF chunk's size field.
    private func sizes() -> Data {
        UInt32(Self.headerSize - 8 + dataByteCount).littleEndianBytes
    }

    private func encode(_ samples: [Float]) -> Data {
        let width = pcm.bitDepth / 8
        var data = Data(count: samples.count * width)
        data.withUnsafeMutableBytes { raw in
            for (index, sample) in samples.enumerated() {
                let offset = index * width
                switch (pcm.isFloat, width) {
                case (true, 4): raw.storeBytes(of: sample.bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
                case (true, _): raw.storeBytes(of: Double(sample).bitPattern.littleEndian, toByteOffset: offset, as: UInt64.self)
                case (false, 2): raw.storeBytes(of: Int16(Self.integer(sample, bits: 16)).littleEndian, toByteOffset: offset, as: Int16.self)
                case (false, 3):
                    let bits = UInt32(bitPattern: Int32(Self.integer(sample, bits: 24)))
                    for byte in 0..<3 { raw[offset + byte] = UInt8(truncatingIfNeeded: bits >> (8 * byte)) }
                default: raw.storeBytes(of: Int32(Self.integer(sample, bits: 32)).littleEndian, toByteOffset: offset, as: Int32.self)
                }
            }
        }
        return data
    }

    /// `value` in -1...1 as a `bits`-bit integer: times 2^(bits-1), rounded to nearest, clipped.
    private static func integer(_ value: Float, bits: Int) -> Int64 {
        let scale = Double(Int64(1) << (bits - 1))
        let scaled = (Double(value) * scale).rounded()
        guard !scaled.isNaN else { return 0 }
        return Int64(min(max(scaled, -scale), scale - 1))
    }

    private func write(_ data: Data, at offset: UInt64) throws {
        try perform {
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: data)
        }
    }

    /// Runs file I/O, turning its errors into an `AVAudioError` naming the file.
    private func perform(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw AVAudioError.make(
                AVAudioError.Code.unspecified, "Could not write the audio file \(path).", reason: error.localizedDescription,
                suggestion: "Check that the disk has room and that the file was not removed.", path: path, underlying: error)
        }
    }

    /// Why `open` failed on `path`, as an error a user can act on.
    private static func openError(_ code: Int32, path: String) -> NSError {
        let folder = (path as NSString).deletingLastPathComponent
        let system = String(cString: strerror(code))
        switch code {
        case ENOENT, ENOTDIR:
            return AVAudioError.make(
                AVAudioError.Code.fileNotFound, "Cannot create the audio file \(path): its folder does not exist.",
                reason: "\(folder): \(system).", suggestion: "Create the folder first, or choose a path in an existing folder.",
                path: path)
        case EACCES, EPERM, EROFS, EISDIR:
            return AVAudioError.make(
                AVAudioError.Code.permissions, "Cannot write the audio file \(path).", reason: "\(path): \(system).",
                suggestion: "Choose a path in a folder you may write to (for example the temporary directory), not a folder itself.",
                path: path)
        default:
            return AVAudioError.make(
                AVAudioError.Code.unspecified, "Cannot create the audio file \(path).", reason: "\(path): \(system).",
                suggestion: "Check the path and the disk.", path: path)
        }
    }
}

extension FixedWidthInteger {
    /// The value's bytes, least significant first.
    fileprivate var littleEndianBytes: Data {
        withUnsafeBytes(of: littleEndian) { Data($0) }
    }
}
