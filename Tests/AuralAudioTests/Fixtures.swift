import Foundation
import TestSupport

/// The shared fixtures (`TestSupport.Fixtures`), named in this target so that its files need no import.
typealias Fixtures = TestSupport.Fixtures

/// Helpers that write synthetic files for the audio tests.
extension Fixtures {
    /// The golden files `scripts/make-goldens` and `scripts/make-media-goldens` wrote.
    static let goldenDirectory = repositoryRoot.appendingPathComponent("Tests/AuralWhisperTests/Golden")

    /// Writes `bytes` to a new file in the temporary directory, runs `body` with its URL, then deletes it.
    /// The file's name ends in `.extension`, which FFmpeg uses as a hint when probing.
    @discardableResult
    static func withTemporaryFile<T>(containing bytes: Data, extension: String = "wav", _ body: (URL) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("AuralAudioTests-\(UUID().uuidString).\(`extension`)")
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }
}

/// Builds WAV files byte by byte, so each test states exactly what is in its file.
enum WAVBytes {
    /// A whole file: the RIFF header (or `magic`, e.g. "RF64") followed by `chunks`.
    static func file(_ chunks: [Data], magic: String = "RIFF") -> Data {
        var body = Data("WAVE".utf8)
        chunks.forEach { body.append($0) }
        var file = Data(magic.utf8)
        file.appendLittleEndian(UInt32(body.count))
        file.append(body)
        return file
    }

    /// A chunk with its id, size and the padding byte RIFF adds after odd-sized payloads.
    static func chunk(_ id: String, _ payload: Data) -> Data {
        var chunk = Data(id.utf8)
        chunk.appendLittleEndian(UInt32(payload.count))
        chunk.append(payload)
        if payload.count % 2 == 1 { chunk.append(0) }
        return chunk
    }

    /// A 16-byte `fmt ` chunk (format code 1 is PCM, 3 is IEEE float).
    static func format(code: UInt16, channels: UInt16, sampleRate: UInt32, bitsPerSample: UInt16) -> Data {
        let blockAlign = channels * ((bitsPerSample + 7) / 8)
        var payload = Data()
        payload.appendLittleEndian(code)
        payload.appendLittleEndian(channels)
        payload.appendLittleEndian(sampleRate)
        payload.appendLittleEndian(sampleRate * UInt32(blockAlign))
        payload.appendLittleEndian(blockAlign)
        payload.appendLittleEndian(bitsPerSample)
        return chunk("fmt ", payload)
    }

    /// A 40-byte WAVE_FORMAT_EXTENSIBLE `fmt ` chunk whose sub-format GUID carries `subformat`.
    static func extensibleFormat(
        subformat: UInt16, channels: UInt16, sampleRate: UInt32, containerBits: UInt16, validBits: UInt16,
        channelMask: UInt32, guidTail: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
    ) -> Data {
        let blockAlign = channels * containerBits / 8
        var payload = Data()
        payload.appendLittleEndian(UInt16(0xFFFE))
        payload.appendLittleEndian(channels)
        payload.appendLittleEndian(sampleRate)
        payload.appendLittleEndian(sampleRate * UInt32(blockAlign))
        payload.appendLittleEndian(blockAlign)
        payload.appendLittleEndian(containerBits)
        payload.appendLittleEndian(UInt16(22))
        payload.appendLittleEndian(validBits)
        payload.appendLittleEndian(channelMask)
        payload.appendLittleEndian(subformat)
        payload.append(contentsOf: guidTail)
        return chunk("fmt ", payload)
    }

    /// A `data` chunk holding `samples`, each stored little-endian in `bytesPerSample` bytes.
    static func data<T: FixedWidthInteger>(_ samples: [T], bytesPerSample: Int = MemoryLayout<T>.size) -> Data {
        var payload = Data()
        for sample in samples {
            withUnsafeBytes(of: sample.littleEndian) { payload.append(contentsOf: $0.prefix(bytesPerSample)) }
        }
        return chunk("data", payload)
    }

    /// A `data` chunk holding 32-bit floats.
    static func data(_ samples: [Float]) -> Data {
        data(samples.map(\.bitPattern))
    }

    /// A `data` chunk holding 64-bit floats.
    static func data(_ samples: [Double]) -> Data {
        data(samples.map(\.bitPattern))
    }
}

extension Data {
    /// Appends an integer in little-endian byte order.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
