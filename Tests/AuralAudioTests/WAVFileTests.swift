import AuralAudio
import Foundation
import Testing

@Suite("WAVFile")
struct WAVFileTests {
    /// One encoding: the file's bytes and the samples and header values they must decode to.
    struct EncodingCase: CustomTestStringConvertible, Sendable {
        let name: String
        let formatChunk: Data
        let dataChunk: Data
        let encoding: WAVFile.Encoding
        let expected: [Float]

        var testDescription: String { name }
    }

    static let encodingCases: [EncodingCase] = [
        EncodingCase(
            name: "8-bit unsigned PCM",
            formatChunk: WAVBytes.format(code: 1, channels: 1, sampleRate: 8_000, bitsPerSample: 8),
            dataChunk: WAVBytes.data([UInt8(0), 64, 128, 255]),
            encoding: .unsignedInt8, expected: [-1, -0.5, 0, 127 / 128]
        ),
        EncodingCase(
            name: "16-bit PCM",
            formatChunk: WAVBytes.format(code: 1, channels: 1, sampleRate: 8_000, bitsPerSample: 16),
            dataChunk: WAVBytes.data([Int16.min, -16_384, 0, Int16.max]),
            encoding: .signedInt16, expected: [-1, -0.5, 0, 32_767 / 32_768]
        ),
        EncodingCase(
            name: "24-bit PCM",
            formatChunk: WAVBytes.format(code: 1, channels: 1, sampleRate: 8_000, bitsPerSample: 24),
            dataChunk: WAVBytes.data([Int32(-8_388_608), -4_194_304, 1, 8_388_607], bytesPerSample: 3),
            encoding: .signedInt24, expected: [-1, -0.5, 1 / 8_388_608, 8_388_607 / 8_388_608]
        ),
        EncodingCase(
            name: "32-bit PCM",
            formatChunk: WAVBytes.format(code: 1, channels: 1, sampleRate: 8_000, bitsPerSample: 32),
            dataChunk: WAVBytes.data([Int32.min, -1_073_741_824, 0, 65_536]),
            encoding: .signedInt32, expected: [-1, -0.5, 0, 1.0 / 32_768]
        ),
        EncodingCase(
            name: "32-bit float",
            formatChunk: WAVBytes.format(code: 3, channels: 1, sampleRate: 8_000, bitsPerSample: 32),
            dataChunk: WAVBytes.data([Float(-1), -0.5, 0, 1.5]),
            encoding: .float32, expected: [-1, -0.5, 0, 1.5]
        ),
        EncodingCase(
            name: "64-bit float",
            formatChunk: WAVBytes.format(code: 3, channels: 1, sampleRate: 8_000, bitsPerSample: 64),
            dataChunk: WAVBytes.data([-1.0, -0.5, 0, 0.25]),
            encoding: .float64, expected: [-1, -0.5, 0, 0.25]
        ),
        EncodingCase(
            name: "WAVE_FORMAT_EXTENSIBLE 16-bit PCM",
            formatChunk: WAVBytes.extensibleFormat(
                subformat: 1, channels: 1, sampleRate: 8_000, containerBits: 16, validBits: 16, channelMask: 0x4),
            dataChunk: WAVBytes.data([Int16(-32_768), 0, 16_384, 1]),
            encoding: .signedInt16, expected: [-1, 0, 0.5, 1 / 32_768]
        ),
        EncodingCase(
            name: "WAVE_FORMAT_EXTENSIBLE 32-bit float",
            formatChunk: WAVBytes.extensibleFormat(
                subformat: 3, channels: 1, sampleRate: 8_000, containerBits: 32, validBits: 32, channelMask: 0x4),
            dataChunk: WAVBytes.data([Float(0.125), -0.125, 1, -1]),
            encoding: .float32, expected: [0.125, -0.125, 1, -1]
        ),
        EncodingCase(
            name: "WAVE_FORMAT_EXTENSIBLE 24 valid bits in 32-bit samples",
            formatChunk: WAVBytes.extensibleFormat(
                subformat: 1, channels: 1, sampleRate: 8_000, containerBits: 32, validBits: 24, channelMask: 0x4),
            dataChunk: WAVBytes.data([Int32(-8_388_608) << 8, 0, 4_194_304 << 8, 256]),
            encoding: .signedInt32, expected: [-1, 0, 0.5, 1 / 8_388_608]
        ),
        EncodingCase(
            name: "12-bit PCM stored in 16-bit samples",
            formatChunk: WAVBytes.format(code: 1, channels: 1, sampleRate: 8_000, bitsPerSample: 12),
            dataChunk: WAVBytes.data([Int16(-32_768), 16, 0, 16_384]),
            encoding: .signedInt16, expected: [-1, 16 / 32_768, 0, 0.5]
        ),
    ]

    @Test("decodes each encoding to the exact expected samples", arguments: encodingCases)
    func decodesEncoding(_ testCase: EncodingCase) throws {
        let bytes = WAVBytes.file([testCase.formatChunk, testCase.dataChunk])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.encoding == testCase.encoding)
        #expect(wav.sampleRate == 8_000)
        #expect(wav.channelCount == 1)
        #expect(wav.frameCount == 4)
        #expect(wav.duration == 0.0005)
        #expect(!wav.isTruncated)
        #expect(wav.interleavedSamples() == testCase.expected)
    }

    @Test("keeps stereo samples interleaved left, right")
    func stereoInterleaving() throws {
        let bytes = WAVBytes.file([
            WAVBytes.format(code: 1, channels: 2, sampleRate: 44_100, bitsPerSample: 16),
            WAVBytes.data([Int16(16_384), -16_384, 8_192, -8_192]),
        ])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.channelCount == 2)
        #expect(wav.frameCount == 2)
        #expect(wav.interleavedSamples() == [0.5, -0.5, 0.25, -0.25])
    }

    @Test("skips unknown chunks, including odd-sized ones with a padding byte")
    func skipsUnknownChunks() throws {
        let bytes = WAVBytes.file([
            WAVBytes.chunk("junk", Data([1, 2, 3])),
            WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16),
            WAVBytes.chunk("LIST", Data("INFOisft".utf8)),
            WAVBytes.chunk("odd ", Data([9])),
            WAVBytes.data([Int16(100), 200, 300]),
            WAVBytes.chunk("id3 ", Data([1, 2, 3, 4, 5])),
        ])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.frameCount == 3)
        #expect(wav.interleavedSamples() == [Float(100), 200, 300].map { $0 / 32_768 })
    }

    @Test("finds the format after the data chunk")
    func formatAfterData() throws {
        let bytes = WAVBytes.file([
            WAVBytes.data([Int16(1), 2]),
            WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16),
        ])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.interleavedSamples() == [Float(1), 2].map { $0 / 32_768 })
    }

    @Test("reads to the end of the file when the data size is left unknown", arguments: [UInt32.max, 0])
    func unknownDataSize(declaredSize: UInt32) throws {
        var bytes = WAVBytes.file([WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16)])
        bytes.append(Data("data".utf8))
        bytes.appendLittleEndian(declaredSize)
        [Int16(5), 6, 7].forEach { bytes.appendLittleEndian($0) }
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.frameCount == 3)
        #expect(!wav.isTruncated)
    }

    @Test("reads RF64 files, taking the data size from the ds64 chunk")
    func rf64() throws {
        var ds64 = Data()
        ds64.appendLittleEndian(UInt64(0))  // RIFF size
        ds64.appendLittleEndian(UInt64(4))  // data size: two 16-bit samples
        ds64.appendLittleEndian(UInt64(2))  // sample count
        var bytes = WAVBytes.file(
            [WAVBytes.chunk("ds64", ds64), WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16)],
            magic: "RF64")
        bytes.append(Data("data".utf8))
        bytes.appendLittleEndian(UInt32.max)
        [Int16(5), 6, 7].forEach { bytes.appendLittleEndian($0) }  // a third sample past the declared size
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.frameCount == 2)
    }

    @Test("decodes what is there when the file is shorter than its data chunk says, and reports it")
    func truncatedData() throws {
        var bytes = WAVBytes.file([WAVBytes.format(code: 1, channels: 2, sampleRate: 16_000, bitsPerSample: 16)])
        bytes.append(Data("data".utf8))
        bytes.appendLittleEndian(UInt32(400))
        [Int16(1), 2, 3, 4, 5].forEach { bytes.appendLittleEndian($0) }  // two frames and half of a third
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.isTruncated)
        #expect(wav.frameCount == 2)
        #expect(wav.interleavedSamples() == [1, 2, 3, 4].map { Float($0) / 32_768 })
    }

    @Test("drops a partial frame at the end of the data")
    func partialFrame() throws {
        var data = WAVBytes.data([Int16(1), 2, 3])
        data.replaceSubrange(4..<8, with: [6, 0, 0, 0])  // declare 6 bytes: one stereo frame and a half
        let bytes = WAVBytes.file([WAVBytes.format(code: 1, channels: 2, sampleRate: 16_000, bitsPerSample: 16), data])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.frameCount == 1)
        #expect(!wav.isTruncated)
    }

    @Test("reads an empty data chunk as zero frames")
    func emptyData() throws {
        let bytes = WAVBytes.file([
            WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16), WAVBytes.chunk("data", Data()),
        ])
        let wav = try Fixtures.withTemporaryFile(containing: bytes) { try WAVFile(url: $0) }
        #expect(wav.frameCount == 0)
        #expect(wav.interleavedSamples().isEmpty)
        #expect(try Fixtures.withTemporaryFile(containing: bytes) { try AudioFileLoader.loadMono16k(url: $0) }.isEmpty)
    }

    @Test("reads the header of the real recordings")
    func realRecordings() throws {
        let wav = try WAVFile(url: Fixtures.audio("two_cities.wav"))
        #expect(wav.sampleRate == 48_000)
        #expect(wav.channelCount == 1)
        #expect(wav.encoding == .signedInt16)
        #expect(wav.frameCount == 2_129_958)
    }

    // MARK: - Errors

    /// A broken input and the error it must give.
    struct BrokenCase: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: Data
        let expected: @Sendable (String) -> AudioSourceError

        var testDescription: String { name }
    }

    static let brokenCases: [BrokenCase] = [
        BrokenCase(name: "an empty file", bytes: Data()) { .emptyFile(path: $0) },
        BrokenCase(name: "a text file", bytes: Data("hello, world".utf8)) {
            .notAudio(path: $0, reason: "It starts with the bytes 68 65 6C 6C, not \"RIFF\"…\"WAVE\".")
        },
        BrokenCase(name: "an MP3 file", bytes: Data("ID3\u{4}\0\0\0\0\0\0\0\0\0\0".utf8)) {
            .notAudio(path: $0, reason: "It looks like an MP3 file, not RIFF/WAVE.")
        },
        BrokenCase(name: "a RIFF file that is not WAVE", bytes: Data("RIFF\u{4}\0\0\0AVI LIST".utf8)) {
            .notAudio(path: $0, reason: "It is a RIFF file of type \"AVI \", not WAVE.")
        },
        BrokenCase(name: "a file cut inside the RIFF header", bytes: Data("RIFF\0\0".utf8)) { .truncated(path: $0) },
        BrokenCase(
            name: "a file cut inside the fmt chunk",
            bytes: WAVBytes.file([WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16)]).prefix(30)
        ) { .truncated(path: $0) },
        BrokenCase(
            name: "a file with no data chunk",
            bytes: WAVBytes.file([WAVBytes.format(code: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16)])
        ) { .truncated(path: $0) },
        BrokenCase(name: "a file with no fmt chunk", bytes: WAVBytes.file([WAVBytes.data([Int16(1)])])) {
            .invalidHeader(path: $0, reason: "The file has a \"data\" chunk but no \"fmt \" chunk.")
        },
        BrokenCase(
            name: "IMA ADPCM",
            bytes: WAVBytes.file([
                WAVBytes.format(code: 0x11, channels: 1, sampleRate: 16_000, bitsPerSample: 4), WAVBytes.data([UInt8(0)]),
            ])
        ) { .unsupportedEncoding(path: $0, format: "IMA ADPCM (format code 0x0011)") },
        BrokenCase(
            name: "an unknown format code",
            bytes: WAVBytes.file([
                WAVBytes.format(code: 0x1234, channels: 1, sampleRate: 16_000, bitsPerSample: 16), WAVBytes.data([Int16(0)]),
            ])
        ) { .unsupportedEncoding(path: $0, format: "format code 0x1234") },
        BrokenCase(
            name: "16-bit float",
            bytes: WAVBytes.file([
                WAVBytes.format(code: 3, channels: 1, sampleRate: 16_000, bitsPerSample: 16), WAVBytes.data([Int16(0)]),
            ])
        ) { .unsupportedEncoding(path: $0, format: "16-bit IEEE float") },
        BrokenCase(
            name: "an extensible file with a non-standard sub-format",
            bytes: WAVBytes.file([
                WAVBytes.extensibleFormat(
                    subformat: 1, channels: 1, sampleRate: 16_000, containerBits: 16, validBits: 16, channelMask: 4,
                    guidTail: Array(repeating: 0, count: 14)),
                WAVBytes.data([Int16(0)]),
            ])
        ) { .unsupportedEncoding(path: $0, format: "WAVE_FORMAT_EXTENSIBLE sub-format 0100" + String(repeating: "00", count: 14)) },
        BrokenCase(
            name: "zero channels",
            bytes: WAVBytes.file([
                WAVBytes.format(code: 1, channels: 0, sampleRate: 16_000, bitsPerSample: 16), WAVBytes.data([Int16(0)]),
            ])
        ) { .invalidHeader(path: $0, reason: "The header says the audio has 0 channels.") },
        BrokenCase(
            name: "a zero sample rate",
            bytes: WAVBytes.file([
                WAVBytes.format(code: 1, channels: 1, sampleRate: 0, bitsPerSample: 16), WAVBytes.data([Int16(0)]),
            ])
        ) { .invalidHeader(path: $0, reason: "The header says the sample rate is 0 Hz.") },
        BrokenCase(
            name: "a 14-byte fmt chunk",
            bytes: WAVBytes.file([WAVBytes.chunk("fmt ", Data(count: 14)), WAVBytes.data([Int16(0)])])
        ) { .invalidHeader(path: $0, reason: "The \"fmt \" chunk is 14 bytes; it needs at least 16.") },
    ]

    /// The broken cases that are not RIFF/WAVE at all: `AudioFileLoader` gives those to FFmpeg (below).
    static let foreignCases: Set<String> = ["a text file", "an MP3 file", "a RIFF file that is not WAVE"]

    @Test("rejects a broken or foreign file with the matching error", arguments: brokenCases)
    func rejectsBrokenFile(_ testCase: BrokenCase) throws {
        try Fixtures.withTemporaryFile(containing: testCase.bytes) { url in
            #expect(throws: testCase.expected(url.path)) { try WAVFile(url: url) }
            if !Self.foreignCases.contains(testCase.name) {
                #expect(throws: testCase.expected(url.path)) { try AudioFileLoader.loadMono16k(url: url) }
            }
        }
    }

    @Test("the loader gives files that are not RIFF/WAVE to FFmpeg, which rejects these ones")
    func foreignFilesGoToFFmpeg() throws {
        let cases = Self.brokenCases.filter { Self.foreignCases.contains($0.name) }
        #expect(cases.count == 3)
        for testCase in cases {
            try Fixtures.withTemporaryFile(containing: testCase.bytes) { url in
                #expect {
                    try AudioFileLoader.loadMono16k(url: url)
                } throws: { error in
                    switch (testCase.name, error as? AudioSourceError) {
                    case ("a text file", .notAudio(url.path, "FFmpeg does not recognise it as any audio or video format.")):
                        return true
                    case ("an MP3 file", .corruptFile(url.path, let reason)):
                        return reason.hasPrefix("It looks like MP2/3 (MPEG audio layer 2/3) (mp3)")
                    case ("a RIFF file that is not WAVE", .corruptFile(url.path, let reason)):
                        return reason.hasPrefix("It looks like AVI (Audio Video Interleaved) (avi)")
                    default:
                        return false
                    }
                }
            }
        }
    }

    @Test("reports a missing file")
    func missingFile() {
        let path = "/nonexistent/aural/speech.wav"
        #expect(throws: AudioSourceError.fileNotFound(path: path)) { try WAVFile(url: URL(fileURLWithPath: path)) }
    }

    @Test("reports a directory as unreadable")
    func directory() {
        let url = FileManager.default.temporaryDirectory
        #expect(throws: AudioSourceError.unreadableFile(path: url.path, reason: "The path is a directory.")) {
            try WAVFile(url: url)
        }
    }
}
