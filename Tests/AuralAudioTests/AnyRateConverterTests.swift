import AuralAudio
import Foundation
import TestSupport
import Testing

/// `AudioConverter` to any sample rate and channel count, in `Float`.
@Suite("AudioConverter to any rate and channel count", .heavyWork)
struct AnyRateConverterTests {
    /// All of `input` through `converter`, drained.
    static func convert(_ input: [Float], with converter: AudioConverter) -> [Float] {
        converter.convert(input) + converter.flush()
    }

    static func converter(_ inputRate: Int, _ inputChannels: Int, to outputRate: Int, _ outputChannels: Int,
                          matrix: [[Double]]? = nil) throws -> AudioConverter {
        try AudioConverter(inputSampleRate: inputRate, inputChannelCount: inputChannels, outputSampleRate: outputRate,
                           outputChannelCount: outputChannels, channelMatrix: matrix)
    }

    /// Tolerance: the only loss in the round trip is libswresample's low-pass filter, applied twice at 16 kHz's Nyquist
    /// (its default cutoff is 97% of 8 kHz, so the 7.76-8 kHz band goes, with the filter's ripple and the edges of the
    /// transition band), plus `Float` rounding, which is some 140 dB down. Speech recorded at 16 kHz has almost no
    /// energy there: measured, the correlation is 0.99997 and the energy 99.97% of the original's. Bounds of 0.9995
    /// and 0.5% leave a margin of 15 times the loss measured, and still fail on a shift of one sample at 16 kHz
    /// (this recording against itself one sample later: 0.94), a wrong rate, a dropped or repeated piece, or a channel
    /// mixed at the wrong level (-3 dB is a 50% energy change).
    @Test("16 kHz mono speech to 44.1 kHz stereo and back keeps the speech; both channels are the mono signal",
          .requiresFixtures(audio: ["beckett.wav"]))
    func roundTripThroughCDFormat() throws {
        let speech = try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples()  // 16 kHz mono, 16-bit
        let up = try Self.converter(16_000, 1, to: 44_100, 2)
        #expect(up.outputSampleRate == 44_100 && up.outputChannelCount == 2)
        let stereo = Self.convert(speech, with: up)
        let left = SignalMeasures.channel(0, of: stereo, channels: 2)
        #expect(left == SignalMeasures.channel(1, of: stereo, channels: 2), "a mono input goes to both channels alike")
        let expectedFrames = Double(speech.count) * 44_100 / 16_000
        #expect(abs(Double(left.count) - expectedFrames) <= 1, "\(left.count) frames at 44.1 kHz for \(speech.count) at 16 kHz")

        let back = Self.convert(stereo, with: try Self.converter(44_100, 2, to: 16_000, 1))
        #expect(abs(back.count - speech.count) <= 1)
        let correlation = SignalMeasures.correlation(back, speech)
        let energyRatio = SignalMeasures.energy(back) / SignalMeasures.energy(speech)
        print("16k mono → 44.1k stereo → 16k mono: correlation \(correlation), energy ratio \(energyRatio)")
        #expect(correlation > 0.9995)
        #expect(abs(energyRatio - 1) < 0.005)
    }

    /// Tolerance: both conversions run libswresample's default filter in 32-bit float over the same 16-bit samples
    /// (Whisper's path is pinned to float internally), so the only difference is Whisper's final rounding to 16 bits.
    /// Rounding ours to 16 bits must therefore give Whisper's samples, within one step where a value falls within a
    /// float's rounding of a half step.
    @Test("48 kHz to 16 kHz in Float is Whisper's conversion before its 16-bit rounding",
          .requiresFixtures(audio: ["two_cities.wav"]))
    func matchesWhisperConversionBeforeRounding() throws {
        let url = Fixtures.audio("two_cities.wav")
        let recording = try WAVFile(url: url).interleavedSamples()  // 48 kHz mono, 16-bit
        let whisper = try AudioFileLoader.loadMono16k(url: url)
        let float = Self.convert(recording, with: try Self.converter(48_000, 1, to: 16_000, 1))
        try #require(float.count == whisper.count)
        let steps = zip(float, whisper).map { abs(($0 * 32_768).rounded() - $1 * 32_768) }
        print("48k → 16k Float against Whisper's 16-bit path: \(steps.filter { $0 > 0 }.count) of \(steps.count) samples differ")
        #expect(steps.allSatisfy { $0 <= 1 })
        #expect(float.contains { ($0 * 32_768).rounded() != $0 * 32_768 }, "the output is not quantised to 16 bits")
    }

    /// Tolerance: a 1 kHz tone is far inside both passbands, where libswresample's default filter is flat and its
    /// aliasing and imaging stay far down; `Float` rounding adds about 1e-7. Against the ideal tone at 48 kHz the largest
    /// error measured is 4.3e-6 of full scale, so a bound of 5e-5 (-86 dB) allows ten times that, while a rate off by
    /// 0.01% (0.1 Hz, a drift of 0.16 by the middle of the second) or a shift of one output sample (up to 0.065) fails.
    @Test("a 1 kHz tone from 44.1 kHz stereo to 48 kHz is the ideal tone at 48 kHz")
    func toneKeepsItsFrequency() throws {
        let frames = 44_100
        let input = SignalMeasures.tone(frequency: 1_000, amplitude: 0.5, sampleRate: 44_100, frames: frames, channels: 2)
        let output = Self.convert(input, with: try Self.converter(44_100, 2, to: 48_000, 2))
        #expect(output.count == 48_000 * 2)
        let ideal = SignalMeasures.tone(frequency: 1_000, amplitude: 0.5, sampleRate: 48_000, frames: 48_000)
        for channel in 0..<2 {
            let samples = SignalMeasures.channel(channel, of: output, channels: 2)
            // Away from the edges, where the filter sees the silence before and after the tone.
            let error = (1_000..<47_000).map { abs(Double(samples[$0]) - Double(ideal[$0])) }.max() ?? 0
            print("1 kHz tone 44.1k → 48k, channel \(channel): largest error \(error)")
            #expect(error < 5e-5)
        }
    }

    @Test("at one rate: mono to stereo duplicates, stereo to mono is the mean, a matrix maps as given, all exactly")
    func channelsAtOneRate() throws {
        let mono: [Float] = [0.5, -0.25, 0.125, 1]
        #expect(try Self.converter(48_000, 1, to: 48_000, 2).convert(mono) == mono.flatMap { [$0, $0] })
        let stereo: [Float] = [0.5, 0.25, -0.25, 0.75]
        #expect(try Self.converter(48_000, 2, to: 48_000, 1).convert(stereo) == [0.375, 0.25])
        let swapped = try Self.converter(48_000, 2, to: 48_000, 2, matrix: [[0, 1], [1, 0]])
        #expect(swapped.convert(stereo) == [0.25, 0.5, 0.75, -0.25])
        let firstOnly = try Self.converter(48_000, 2, to: 48_000, 1, matrix: [[1, 0]])
        #expect(firstOnly.convert(stereo) == [0.5, -0.25])
        #expect(firstOnly.flush().isEmpty, "nothing is held back when the rate does not change")
    }

    @Test("5.1 to stereo mixes every channel in and never exceeds full scale")
    func surroundToStereo() throws {
        let fullScale = [Float](repeating: 1, count: 6 * 100)
        let stereo = try Self.converter(48_000, 6, to: 48_000, 2).convert(fullScale)
        #expect(stereo.count == 200)
        #expect(stereo.allSatisfy { $0 > 0.99 && $0 <= 1 }, "\(stereo.prefix(2))")
        // The centre alone reaches both sides.
        let centre = (0..<100).flatMap { _ -> [Float] in [0, 0, 1, 0, 0, 0] }
        let fromCentre = try Self.converter(48_000, 6, to: 48_000, 2).convert(centre)
        #expect(fromCentre.allSatisfy { $0 > 0.2 }, "\(fromCentre.prefix(2))")
    }

    @Test("gives the same samples whether the input comes in pieces or at once", arguments: [1, 441, 10_000])
    func streaming(pieceFrames: Int) throws {
        let input = SignalMeasures.tone(frequency: 440, amplitude: 0.5, sampleRate: 44_100, frames: 44_100, channels: 2)
        let expected = Self.convert(input, with: try Self.converter(44_100, 2, to: 22_050, 2))
        let pieces = try Self.converter(44_100, 2, to: 22_050, 2)
        var output: [Float] = []
        for start in stride(from: 0, to: input.count, by: pieceFrames * 2) {
            output += pieces.convert(Array(input[start..<min(start + pieceFrames * 2, input.count)]))
        }
        output += pieces.flush()
        #expect(output == expected)
    }

    @Test("Whisper's converter reports 16 kHz mono output")
    func whisperOutput() throws {
        let converter = try AudioConverter(inputSampleRate: 44_100, inputChannelCount: 2)
        #expect(converter.outputSampleRate == 16_000 && converter.outputChannelCount == 1)
        #expect(AudioConverter.outputSampleRate == 16_000)
    }

    @Test("rejects an impossible output rate or channel count, or a matrix that does not fit",
          arguments: [(0, 2, nil), (16_000, 0, nil), (16_000, 65, nil), (16_000, 2, [[1.0]]), (16_000, 1, [[1.0, .nan]])] as [(Int, Int, [[Double]]?)])
    func rejectsImpossibleOutput(sampleRate: Int, channels: Int, matrix: [[Double]]?) {
        #expect {
            try Self.converter(48_000, 2, to: sampleRate, channels, matrix: matrix)
        } throws: { error in
            guard case .conversionFailed(let reason) = error as? AudioSourceError else { return false }
            return !reason.isEmpty
        }
    }
}
