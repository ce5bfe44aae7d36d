import AuralAudio
import AVFoundation
import TestSupport
import Testing

/// Resampling whole recordings holds a thread for seconds: the tests run on `HeavyWorkLane` (`.heavyWork`).
@Suite("AVAudioConverter", .heavyWork)
struct AVAudioConverterTests {
    static let stereo48k = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    static let mono16k = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!

    /// Runs a whole stream through `converter` as an app does with a tap's buffers: each call gives one input buffer
    /// and then says `.noDataNow`; after the last one, `.endOfStream`. Returns channel 0 of the output and every status.
    static func stream(_ inputs: [AVAudioPCMBuffer], through converter: AVAudioConverter, outputFrames: AVAudioFrameCount)
        throws -> (samples: [Float], statuses: [AVAudioConverterOutputStatus]) {
        let (channels, statuses) = try streamChannels(inputs, through: converter, outputFrames: outputFrames)
        return (channels[0], statuses)
    }

    /// As `stream(_:through:outputFrames:)`, returning every channel of the output.
    static func streamChannels(_ inputs: [AVAudioPCMBuffer], through converter: AVAudioConverter, outputFrames: AVAudioFrameCount)
        throws -> (channels: [[Float]], statuses: [AVAudioConverterOutputStatus]) {
        var channels = [[Float]](repeating: [], count: Int(converter.outputFormat.channelCount))
        var statuses: [AVAudioConverterOutputStatus] = []
        var remaining = inputs[...]
        let output = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: outputFrames))
        while statuses.last != .endOfStream {
            var given = false
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, inputStatus in
                if remaining.isEmpty {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                if given {
                    inputStatus.pointee = .noDataNow
                    return nil
                }
                given = true
                inputStatus.pointee = .haveData
                return remaining.popFirst()
            }
            try #require(status != .error, "\(error?.localizedDescription ?? "")")
            statuses.append(status)
            for channel in channels.indices { channels[channel] += TestAudio.samples(output, channel: channel) }
            try #require(statuses.count < 100_000)
        }
        return (channels, statuses)
    }

    /// `samples` in buffers of `format`, `size` frames each; channel n holds the samples times `gains[n]`.
    static func buffers(_ samples: [Float], format: AVAudioFormat, gains: [Float], size: Int = 4_800) -> [AVAudioPCMBuffer] {
        stride(from: 0, to: samples.count, by: size).map { start in
            let piece = Array(samples[start..<min(start + size, samples.count)])
            return TestAudio.buffer(format, channels: gains.map { gain in piece.map { $0 * gain } })
        }
    }

    @Test("16-bit interleaved to float deinterleaved and back is exact")
    func sampleTypeAndLayout() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let float = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let values: [Float] = [-1, -0.5, 0, 1 / 32_768, 0.25, 32_767 / 32_768]
        let input = TestAudio.buffer(int16, channels: [values, values.reversed()])
        let toFloat = try #require(AVAudioConverter(from: int16, to: float))
        let floats = try #require(AVAudioPCMBuffer(pcmFormat: float, frameCapacity: 10))
        try toFloat.convert(to: floats, from: input)
        #expect(floats.frameLength == 6)
        #expect(TestAudio.samples(floats, channel: 0) == values)
        #expect(TestAudio.samples(floats, channel: 1) == values.reversed())
        let back = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 6))
        try #require(AVAudioConverter(from: float, to: int16)).convert(to: back, from: floats)
        let integers = Array(UnsafeBufferPointer(start: try #require(back.int16ChannelData)[0], count: 12))
        let original = Array(UnsafeBufferPointer(start: try #require(input.int16ChannelData)[0], count: 12))
        #expect(integers == original)
    }

    @Test("stereo to mono takes the first channel, or the mean with downmix; mono to stereo fills both")
    func channels() throws {
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 2))
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        let input = TestAudio.buffer(stereo, channels: [[0.5, -0.25], [0.25, 0.75]])
        let converter = try #require(AVAudioConverter(from: stereo, to: mono))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 2))
        try converter.convert(to: output, from: input)
        #expect(TestAudio.samples(output) == [0.5, -0.25])
        converter.downmix = true
        try converter.convert(to: output, from: input)
        #expect(TestAudio.samples(output) == [0.375, 0.25])

        let up = try #require(AVAudioConverter(from: mono, to: stereo))
        let wide = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 2))
        try up.convert(to: wide, from: output)
        #expect(TestAudio.samples(wide, channel: 0) == [0.375, 0.25])
        #expect(TestAudio.samples(wide, channel: 1) == [0.375, 0.25])
    }

    @Test("convert(to:from:) refuses a change of rate and too small an output, as Apple's does")
    func simpleConversionLimits() throws {
        let converter = try #require(AVAudioConverter(from: Self.stereo48k, to: Self.mono16k))
        let input = TestAudio.buffer(Self.stereo48k, channels: [[0, 0, 0], [0, 0, 0]])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: Self.mono16k, frameCapacity: 3))
        let rate = try #require(throws: NSError.self) { try converter.convert(to: output, from: input) }
        #expect(rate.code == -50)
        #expect(rate.localizedRecoverySuggestion?.contains("convert(to:error:withInputFrom:)") == true)
        let mono48k = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        let sameRate = try #require(AVAudioConverter(from: Self.stereo48k, to: mono48k))
        let small = try #require(AVAudioPCMBuffer(pcmFormat: sameRate.outputFormat, frameCapacity: 2))
        #expect(throws: NSError.self) { try sameRate.convert(to: small, from: input) }
    }

    @Test("any change of rate in whole hertz is possible; other formats and rates are not")
    func possibleConversions() throws {
        let cd = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        #expect(AVAudioConverter(from: cd, to: Self.stereo48k) != nil)
        let mono8k = try #require(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1))
        #expect(AVAudioConverter(from: cd, to: mono8k) != nil)
        #expect(AVAudioConverter(from: Self.mono16k, to: cd) != nil)
        let fractional = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100.5, channels: 2))
        #expect(AVAudioConverter(from: fractional, to: Self.stereo48k) == nil)
        let packed24 = try #require(AVAudioFormat(settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24]))
        #expect(AVAudioConverter(from: packed24, to: Self.mono16k) == nil)
    }

    /// Real 16 kHz speech converted as an app converts for playback, to CD format (44.1 kHz stereo, 16-bit interleaved),
    /// then back to 16 kHz mono float, in tap-sized pieces both ways.
    ///
    /// Tolerance: the way up, libswresample's filter passes everything in the 16 kHz signal but its top 3% (7.76-8 kHz);
    /// the way down it cuts at the same place; in between the samples are rounded to 16 bits, noise some 100 dB under
    /// full scale. Speech has almost nothing up there: measured, the correlation is 0.99997 and the energy 99.97% of the
    /// original's. Bounds of 0.9995 and 0.5% allow for 15 times that loss, and fail on a shift of one sample (this
    /// recording against itself one sample later: 0.94), a wrong rate, a lost or repeated piece, or a channel at the
    /// wrong level (-3 dB is 50% of the energy).
    @Test("16 kHz mono float to 44.1 kHz stereo int16 interleaved and back keeps the speech; both channels carry it",
          .requiresFixtures(audio: ["beckett.wav"]))
    func monoFloatToStereoInt16AndBack() throws {
        let speech = try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples()  // 16 kHz mono
        let cd = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let up = try #require(AVAudioConverter(from: Self.mono16k, to: cd))
        let (stereo, upStatuses) = try Self.streamChannels(
            Self.buffers(speech, format: Self.mono16k, gains: [1], size: 1_600), through: up, outputFrames: 4_410)
        #expect(upStatuses.last == .endOfStream)
        #expect(stereo[0] == stereo[1], "a mono input goes to both channels alike")
        #expect(abs(Double(stereo[0].count) - Double(speech.count) * 44_100 / 16_000) <= 1)
        #expect(stereo[0].contains { $0 != 0 } && stereo[0].allSatisfy { ($0 * 32_768).rounded() == $0 * 32_768 })

        let down = try #require(AVAudioConverter(from: cd, to: Self.mono16k))
        let (back, downStatuses) = try Self.stream(
            Self.buffers(stereo[0], format: cd, gains: [1, 1], size: 4_410), through: down, outputFrames: 1_600)
        #expect(downStatuses.last == .endOfStream)
        #expect(abs(back.count - speech.count) <= 1)
        let correlation = SignalMeasures.correlation(back, speech)
        let energyRatio = SignalMeasures.energy(back) / SignalMeasures.energy(speech)
        print("16k mono float → 44.1k stereo int16 → 16k mono float: correlation \(correlation), energy ratio \(energyRatio)")
        #expect(correlation > 0.9995)
        #expect(abs(energyRatio - 1) < 0.005)
    }

    /// 48 kHz stereo made from a real 48 kHz recording (left: the recording, right: half of it), converted to 16 kHz
    /// mono in tap-sized pieces, against AuralAudio's own 16 kHz conversion of the same recording.
    ///
    /// Tolerance: both sides run libswresample's default filter over the same samples, so they differ only where the
    /// input enters it (float here, 16-bit integers from the WAV file) and by the 16-bit rounding of AuralAudio's output
    /// (this converter's stays float), about 1/32768 per sample, some 70 dB under the speech. A correlation of 0.999 and an energy within 1% of the expected
    /// ratio leave room for that and nothing else: a wrong rate, a shift, a lost or repeated piece, or the wrong channel
    /// mix each cost far more.
    @Test("48 kHz stereo to 16 kHz mono: the same audio as AuralAudio's conversion, mixed as asked",
          .requiresFixtures(audio: ["two_cities.wav"]), arguments: [false, true])
    func resamplesLikeAuralAudio(downmix: Bool) throws {
        let url = Fixtures.audio("two_cities.wav")
        let recording = try WAVFile(url: url).interleavedSamples()
        let reference = try AudioFileLoader.loadMono16k(url: url)
        let converter = try #require(AVAudioConverter(from: Self.stereo48k, to: Self.mono16k))
        converter.downmix = downmix
        let inputs = Self.buffers(recording, format: Self.stereo48k, gains: [1, 0.5])
        let (output, statuses) = try Self.stream(inputs, through: converter, outputFrames: 1_600)

        #expect(abs(output.count - reference.count) <= 2, "\(output.count) frames; AuralAudio gives \(reference.count)")
        let correlation = SignalMeasures.correlation(output, reference)
        let gain = downmix ? 0.75 : 1.0  // the mean of 1 and 0.5, or the left channel alone
        let energyRatio = SignalMeasures.energy(output) / SignalMeasures.energy(reference)
        print("48k stereo → 16k mono, downmix \(downmix): NCC \(correlation), energy ratio \(energyRatio) (expected \(gain * gain))")
        #expect(correlation >= 0.999)
        #expect(abs(energyRatio / (gain * gain) - 1) < 0.01)
        #expect(statuses.last == .endOfStream)
        #expect(statuses.dropLast().allSatisfy { $0 == .haveData || $0 == .inputRanDry })
    }

    @Test("a stream converts to the same samples in any pieces, and reset() starts a new one",
          .requiresFixtures(audio: ["beckett.wav"]))
    func piecesAndReset() throws {
        let recording = Array(try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples().prefix(48_000))
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 24_000, channels: 1))  // labelled 24 kHz
        let converter = try #require(AVAudioConverter(from: format, to: Self.mono16k))
        let whole = try Self.stream(Self.buffers(recording, format: format, gains: [1], size: 48_000), through: converter, outputFrames: 50_000)
        converter.reset()
        let pieces = try Self.stream(Self.buffers(recording, format: format, gains: [1], size: 1_001), through: converter, outputFrames: 333)
        #expect(whole.samples.count == 32_000)
        #expect(pieces.samples == whole.samples)
        // After the end, the converter says so until it is reset.
        let output = try #require(AVAudioPCMBuffer(pcmFormat: Self.mono16k, frameCapacity: 10))
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, _ in
            Issue.record("the input block was called after the end of the stream")
            return nil
        }
        #expect(status == .endOfStream && output.frameLength == 0)
    }

    /// The way speech apps feed a tap's buffers to an analyzer: one `convert` call per buffer, an output buffer sized
    /// by the rate ratio, the buffer given once and then `.noDataNow`, and the stream never ended.
    static func convertEachBuffer(_ buffer: AVAudioPCMBuffer, with converter: AVAudioConverter) throws -> AVAudioPCMBuffer {
        let ratio = converter.outputFormat.sampleRate / converter.inputFormat.sampleRate
        let capacity = AVAudioFrameCount((Double(buffer.frameLength) * ratio).rounded(.up))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: capacity))
        var error: NSError?
        var handedOver = false
        let status = converter.convert(to: output, error: &error) { _, inputStatus in
            defer { handedOver = true }
            inputStatus.pointee = handedOver ? .noDataNow : .haveData
            return handedOver ? nil : buffer
        }
        try #require(status != .error, "\(String(describing: error))")
        return output
    }

    @Test("one convert call per tap buffer, as speech apps do, gives the stream's samples in order",
          .requiresFixtures(audio: ["two_cities.wav"]))
    func oneCallPerBuffer() throws {
        let recording = Array(try WAVFile(url: Fixtures.audio("two_cities.wav")).interleavedSamples().prefix(480_000))
        let inputs = Self.buffers(recording, format: Self.stereo48k, gains: [1, 1])
        let converter = try #require(AVAudioConverter(from: Self.stereo48k, to: Self.mono16k))
        converter.primeMethod = .none
        #expect(inputs[0].format != converter.outputFormat)
        let pieces = try inputs.flatMap { TestAudio.samples(try Self.convertEachBuffer($0, with: converter)) }
        let reference = try Self.stream(inputs, through: #require(AVAudioConverter(from: Self.stereo48k, to: Self.mono16k)),
                                        outputFrames: 1_600).samples
        // The resampler holds back its filter's few milliseconds until the stream ends, which it never does here.
        #expect(pieces.count <= reference.count && pieces.count > reference.count - 160)
        #expect(pieces == Array(reference.prefix(pieces.count)))
    }

    @Test("a buffer of the wrong format is .error with an NSError")
    func wrongFormat() throws {
        let converter = try #require(AVAudioConverter(from: Self.stereo48k, to: Self.mono16k))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: Self.mono16k, frameCapacity: 100))
        let mono48k = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        let monoInput = TestAudio.buffer(mono48k, channels: [[0, 0]])
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, inputStatus in
            inputStatus.pointee = .haveData
            return monoInput
        }
        #expect(status == .error)
        #expect(error?.code == -50)
        #expect(error?.localizedFailureReason?.contains("1 ch, 48000 Hz") == true)
    }
}
