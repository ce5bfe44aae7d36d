import AuralAudio
import Foundation
import TestSupport
import Testing

@Suite("AudioConverter", .heavyWork)
struct AudioConverterTests {
    /// What faster-whisper 1.2.1's `decode_audio` (PyAV 16, libswresample 6.3) returns for a file, as 16-bit
    /// integers (`sample * 32768`): the count, three sums over every sample, and a few samples.
    struct Golden: CustomTestStringConvertible, Sendable {
        let file: String
        let count: Int
        let sum: Int64
        let sumOfSquares: Int64
        /// Σ (i + 1) · sample[i]: changes if any sample moves.
        let weightedSum: Int64
        let samples: [Int: Int16]

        var testDescription: String { file }
    }

    static let recordings: [Golden] = [
        Golden(
            file: "beckett.wav", count: 159_414, sum: 1_703, sumOfSquares: 94_625_170_621, weightedSum: 678_753_447,
            samples: [0: 129, 1_000: -20, 16_000: -856, 80_000: 1_283, 159_413: 169]
        ),
        Golden(
            file: "two_cities.wav", count: 709_986, sum: 922, sumOfSquares: 179_148_994_630, weightedSum: 1_163_175_107,
            samples: [1_000: -16, 16_000: 10, 80_000: 55, 354_993: 2_027, 709_985: -6]
        ),
        Golden(
            file: "endgame_nagg_nell.wav", count: 452_436, sum: -95_810, sumOfSquares: 10_292_800_652_444,
            weightedSum: -143_572_881_828, samples: [80_000: 6_655, 452_435: 955]
        ),
    ]

    @Test("loads each recording bit-identical to faster-whisper's decode_audio", arguments: recordings)
    func matchesFasterWhisper(_ golden: Golden) throws {
        let samples = try AudioFileLoader.loadMono16k(url: Fixtures.audio(golden.file))
        expect(samples, toMatch: golden)
    }

    @Test("converts a stereo 44.1 kHz float file bit-identical to faster-whisper")
    func stereoFloatMatchesFasterWhisper() throws {
        // Left: the 24 kHz recording's samples; right: the same reversed at half level; labelled 44.1 kHz.
        let mono = try WAVFile(url: Fixtures.audio("endgame_nagg_nell.wav")).interleavedSamples()
        let stereo = zip(mono, mono.reversed()).flatMap { [$0, $1 / 2] }
        let bytes = WAVBytes.file([
            WAVBytes.format(code: 3, channels: 2, sampleRate: 44_100, bitsPerSample: 32), WAVBytes.data(stereo),
        ])
        let samples = try Fixtures.withTemporaryFile(containing: bytes) { try AudioFileLoader.loadMono16k(url: $0) }
        let golden = Golden(
            file: "stereo 44.1 kHz float", count: 246_224, sum: -33_682, sumOfSquares: 1_748_630_790_466,
            weightedSum: -13_260_199_432, samples: [1_000: 3_247, 80_000: 414, 246_223: 470]
        )
        expect(samples, toMatch: golden)
    }

    @Test("passes a 16 kHz mono 16-bit file through unchanged")
    func passthrough() throws {
        let url = Fixtures.audio("beckett.wav")
        #expect(try AudioFileLoader.loadMono16k(url: url) == WAVFile(url: url).interleavedSamples())
    }

    @Test(
        "converts the same audio stored in another encoding to the same samples",
        arguments: [WAVFile.Encoding.signedInt24, .signedInt32, .float32, .float64]
    )
    func encodingDoesNotChangeTheResult(_ encoding: WAVFile.Encoding) throws {
        let url = Fixtures.audio("beckett.wav")
        let samples = try WAVFile(url: url).interleavedSamples()
        let dataChunk: Data
        switch encoding {
        case .signedInt24: dataChunk = WAVBytes.data(samples.map { Int32($0 * 8_388_608) }, bytesPerSample: 3)
        case .signedInt32: dataChunk = WAVBytes.data(samples.map { Int32($0 * 2_147_483_648) })
        case .float32: dataChunk = WAVBytes.data(samples)
        default: dataChunk = WAVBytes.data(samples.map { Double($0) })
        }
        let code: UInt16 = encoding == .float32 || encoding == .float64 ? 3 : 1
        let bits = UInt16(encoding.bytesPerSample * 8)
        let bytes = WAVBytes.file([
            WAVBytes.format(code: code, channels: 1, sampleRate: 16_000, bitsPerSample: bits), dataChunk,
        ])
        let converted = try Fixtures.withTemporaryFile(containing: bytes) { try AudioFileLoader.loadMono16k(url: $0) }
        #expect(converted == samples)
    }

    @Test("gives the same samples whether the input comes in pieces or at once", arguments: [1, 160, 4_096, 100_000])
    func streaming(pieceFrames: Int) throws {
        let stereo = Self.tone(frequency: 440, amplitude: 0.5, sampleRate: 44_100, seconds: 1, channels: 2)
        let whole = try AudioConverter(inputSampleRate: 44_100, inputChannelCount: 2)
        let expected = whole.convert(stereo) + whole.flush()

        let pieces = try AudioConverter(inputSampleRate: 44_100, inputChannelCount: 2)
        var output: [Float] = []
        for start in stride(from: 0, to: stereo.count, by: pieceFrames * 2) {
            output += pieces.convert(Array(stereo[start..<min(start + pieceFrames * 2, stereo.count)]))
        }
        output += pieces.flush()
        #expect(output == expected)
    }

    @Test("turns one second of input at any rate into 16,000 samples", arguments: [8_000, 22_050, 44_100, 48_000, 96_000])
    func outputLength(sampleRate: Int) throws {
        let converter = try AudioConverter(inputSampleRate: sampleRate, inputChannelCount: 1)
        let input = Self.tone(frequency: 300, amplitude: 0.25, sampleRate: sampleRate, seconds: 1, channels: 1)
        #expect((converter.convert(input) + converter.flush()).count == 16_000)
    }

    @Test("keeps the level of a 1 kHz tone")
    func level() throws {
        let converter = try AudioConverter(inputSampleRate: 48_000, inputChannelCount: 1)
        let input = Self.tone(frequency: 1_000, amplitude: 0.5, sampleRate: 48_000, seconds: 1, channels: 1)
        let output = converter.convert(input) + converter.flush()
        let middle = output[1_000..<15_000]
        let rms = (middle.reduce(0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.002)
        #expect(output.allSatisfy { $0 == ($0 * 32_768).rounded() / 32_768 }, "every sample is a multiple of 1/32768")
    }

    @Test("mixes two identical channels to the same signal as mono")
    func downmix() throws {
        let mono = Self.tone(frequency: 440, amplitude: 0.5, sampleRate: 22_050, seconds: 0.5, channels: 1)
        let stereo = mono.flatMap { [$0, $0] }
        let monoConverter = try AudioConverter(inputSampleRate: 22_050, inputChannelCount: 1)
        let stereoConverter = try AudioConverter(inputSampleRate: 22_050, inputChannelCount: 2)
        let fromMono = monoConverter.convert(mono) + monoConverter.flush()
        let fromStereo = stereoConverter.convert(stereo) + stereoConverter.flush()
        #expect(fromMono.count == fromStereo.count)
        #expect(zip(fromMono, fromStereo).allSatisfy { abs($0 - $1) <= 1 / 32_768 })
    }

    @Test("flush is safe to call twice and returns nothing the second time")
    func flushTwice() throws {
        let converter = try AudioConverter(inputSampleRate: 44_100, inputChannelCount: 1)
        _ = converter.convert(Self.tone(frequency: 440, amplitude: 0.5, sampleRate: 44_100, seconds: 0.1, channels: 1))
        #expect(!converter.flush().isEmpty)
        #expect(converter.flush().isEmpty)
    }

    @Test(
        "rejects an impossible sample rate or channel count",
        arguments: [(0, 1), (-8_000, 1), (16_000, 0), (16_000, 65)]
    )
    func rejectsImpossibleInput(sampleRate: Int, channels: Int) {
        #expect {
            try AudioConverter(inputSampleRate: sampleRate, inputChannelCount: channels)
        } throws: { error in
            guard case .conversionFailed(let reason) = error as? AudioSourceError else { return false }
            return !reason.isEmpty
        }
    }

    // MARK: - Helpers

    /// A sine tone, the same in every channel, interleaved.
    static func tone(frequency: Double, amplitude: Double, sampleRate: Int, seconds: Double, channels: Int) -> [Float] {
        let frames = Int(seconds * Double(sampleRate))
        return (0..<frames).flatMap { frame in
            let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(frame) / Double(sampleRate)))
            return Array(repeating: value, count: channels)
        }
    }

    private func expect(_ samples: [Float], toMatch golden: Golden, sourceLocation: SourceLocation = #_sourceLocation) {
        let integers = samples.map { Int64($0 * 32_768) }
        #expect(samples.count == golden.count, sourceLocation: sourceLocation)
        #expect(integers.reduce(0, +) == golden.sum, sourceLocation: sourceLocation)
        #expect(integers.reduce(0) { $0 + $1 * $1 } == golden.sumOfSquares, sourceLocation: sourceLocation)
        let weighted = integers.enumerated().reduce(Int64(0)) { $0 + Int64($1.offset + 1) * $1.element }
        #expect(weighted == golden.weightedSum, sourceLocation: sourceLocation)
        for (index, value) in golden.samples.sorted(by: { $0.key < $1.key }) where index < samples.count {
            #expect(integers[index] == Int64(value), "sample \(index)", sourceLocation: sourceLocation)
        }
    }
}
