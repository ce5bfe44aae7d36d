import AuralAudio
import Foundation
import Testing
import TestSupport

@Suite("BufferConverter")
struct BufferConverterTests {
    /// A real recording as stereo: left the 24 kHz recording, right the same reversed at half level, labelled
    /// `sampleRate` (so the resampler works at a rate it was not recorded at, as a device might deliver).
    static func stereoSpeech(sampleRate: Int) throws -> AudioBuffer {
        let mono = try WAVFile(url: Fixtures.audio("endgame_nagg_nell.wav")).interleavedSamples()
        return AudioBuffer(
            samples: zip(mono, mono.reversed()).flatMap { [$0, $1 / 2] },
            format: AudioFormat(sampleRate: sampleRate, channelCount: 2), startTime: 0)
    }

    /// `buffer` cut into pieces of the given frame counts, cycling through them.
    static func pieces(of buffer: AudioBuffer, frames: [Int]) -> [AudioBuffer] {
        var result: [AudioBuffer] = []
        let channels = buffer.format.channelCount
        var start = 0
        var index = 0
        while start < buffer.frameCount {
            let count = min(frames[index % frames.count], buffer.frameCount - start)
            let samples = Array(buffer.samples[(start * channels)..<((start + count) * channels)])
            result.append(AudioBuffer(
                samples: samples, format: buffer.format, startTime: Double(start) / Double(buffer.format.sampleRate)))
            start += count
            index += 1
        }
        return result
    }

    @Test("odd-sized buffers give exactly the samples of one piece: no clicks, no drift", arguments: [[1], [7, 331, 4_999], [44_100]])
    func piecesEqualWhole(frames: [Int]) throws {
        let whole = try Self.stereoSpeech(sampleRate: 44_100)
        let once = BufferConverter()
        let expected = try once.convert(whole) + once.flush()
        let converter = BufferConverter()
        var output: [Float] = []
        for piece in Self.pieces(of: whole, frames: frames) { output += try converter.convert(piece) }
        output += converter.flush()
        #expect(output.count == expected.count)
        #expect(output == expected)
        // No drift: the length is the input's duration at 16 kHz.
        #expect(abs(Double(output.count) - whole.duration * 16_000) <= 1)
    }

    @Test("matches sox's resampling and downmix of the same input", arguments: [44_100, 48_000, 22_050, 8_000])
    func matchesSox(sampleRate: Int) throws {
        let input = try Self.stereoSpeech(sampleRate: sampleRate)
        let converter = BufferConverter()
        var ours: [Float] = []
        for piece in Self.pieces(of: input, frames: [1_023, 517]) { ours += try converter.convert(piece) }
        ours += converter.flush()

        let reference = try Self.sox(input)
        #expect(abs(ours.count - reference.count) <= 1)
        let count = min(ours.count, reference.count)
        var dot = 0.0, ourEnergy = 0.0, referenceEnergy = 0.0, errorEnergy = 0.0
        for i in 0..<count {
            let (a, b) = (Double(ours[i]), Double(reference[i]))
            dot += a * b
            ourEnergy += a * a
            referenceEnergy += b * b
            errorEnergy += (a - b) * (a - b)
        }
        let correlation = dot / (ourEnergy * referenceEnergy).squareRoot()
        let relativeError = (errorEnergy / referenceEnergy).squareRoot()
        // Measured: correlation 0.99987 to 0.99997, RMS error 0.8 % to 1.6 % of the signal's, gain within 0.05 %: the resamplers'
        // anti-alias filters differ near 8 kHz; the timing and level are the same.
        #expect(correlation > 0.9995, "correlation \(correlation)")
        #expect(relativeError < 0.03, "RMS error \(relativeError) of the signal's")
        #expect(abs(dot / referenceEnergy - 1) < 0.01, "gain \(dot / referenceEnergy)")
    }

    @Test("a change of format drains the old converter and starts a new one")
    func formatChange() throws {
        let first = try Self.stereoSpeech(sampleRate: 48_000)
        let second = AudioBuffer(
            samples: AudioConverterTests.tone(frequency: 440, amplitude: 0.5, sampleRate: 22_050, seconds: 1, channels: 1),
            format: AudioFormat(sampleRate: 22_050, channelCount: 1), startTime: first.duration)
        let converter = BufferConverter()
        let output = try converter.convert(first) + converter.convert(second) + converter.flush()

        let a = try AudioConverter(inputFormat: first.format)
        let b = try AudioConverter(inputFormat: second.format)
        let expected = a.convert(first.samples) + a.flush() + b.convert(second.samples) + b.flush()
        #expect(output == expected)
    }

    @Test("an impossible format is an error")
    func impossibleFormat() {
        let buffer = AudioBuffer(samples: [0, 0], format: AudioFormat(sampleRate: 0, channelCount: 2), startTime: 0)
        #expect(throws: AudioSourceError.self) { try BufferConverter().convert(buffer) }
    }

    /// sox's conversion of `buffer` to 16 kHz mono float (its default high-quality resampler, channels averaged).
    static func sox(_ buffer: AudioBuffer) throws -> [Float] {
        let directory = FileManager.default.temporaryDirectory
        let input = directory.appendingPathComponent("BufferConverterTests-\(UUID().uuidString).f32")
        let output = directory.appendingPathComponent("BufferConverterTests-\(UUID().uuidString).f32")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try buffer.samples.withUnsafeBytes { Data($0) }.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "sox", "-t", "f32", "-r", "\(buffer.format.sampleRate)", "-c", "\(buffer.format.channelCount)", input.path,
            "-t", "f32", "-r", "16000", "-c", "1", output.path,
        ]
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        // Foundation's waitUntilExit can miss the exit while other tests spawn processes, and then waits forever.
        try #require(process.waitForExit() == 0, "sox failed; is it installed (scripts/setup)?")
        return try Data(contentsOf: output).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
