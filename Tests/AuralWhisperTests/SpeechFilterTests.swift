import AuralVAD
import Foundation
import Testing
import TestSupport
@testable import AuralWhisper

/// The Silero VAD weights `scripts/setup` installs.
private let vadWeights = SileroVAD.modelURL(inModelsDirectory: Fixtures.modelsDirectory)

@Suite(
    "SpeechFilter (vadFilter)", .heavyWork,
    .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]),
    .enabled(if: FileManager.default.fileExists(atPath: vadWeights.path), "needs the Silero VAD weights; scripts/setup installs them"))
struct SpeechFilterTests {
    static let weights = vadWeights
    static let options = DecodingOptions(language: "en", beamSize: 1, wordTimestamps: true, vadFilter: .fasterWhisper)

    /// beckett.wav with `seconds` of quiet noise (about −50 dBFS, a fixed seed) inserted at 4.5 s, in the pause
    /// between "No matter." and "Try again.".
    static func gapped(_ samples: [Float], seconds: Double) -> (samples: [Float], at: Double) {
        let at = 4.5
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<Int(seconds * 16_000)).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) - 0.5) * 0.006
        }
        let cut = Int(at * 16_000)
        return (Array(samples[..<cut]) + noise + Array(samples[cut...]), at)
    }

    @Test("20 s of noise inserted: the same words, and the words after the gap at their real times")
    func gap() async throws {
        let transcriber = Transcriber(model: try Fixtures.model("tiny.en"), voiceActivityDetector: try SileroVAD(contentsOf: Self.weights))
        let samples = try Fixtures.samples("beckett.wav")
        let (gappedSamples, at) = Self.gapped(samples, seconds: 20)
        let (plain, gapped) = try await offPool {
            (try transcriber.transcribe(samples, options: Self.options), try transcriber.transcribe(gappedSamples, options: Self.options))
        }
        #expect(abs(gapped.info.duration - Double(gappedSamples.count) / 16_000) < 1e-9)
        let plainWords = plain.segments.flatMap { $0.words ?? [] }, gappedWords = gapped.segments.flatMap { $0.words ?? [] }
        // The same words; Whisper may punctuate the joined audio differently ("matter," / "matter.").
        let bare = { (word: WordTiming) in word.word.lowercased().filter { $0.isLetter } }
        #expect(gappedWords.map(bare) == plainWords.map(bare))
        #expect(plainWords.map(\.word).joined() == " Ever tried, ever failed. No matter, try again. Fail again. Fail better.")
        // The joined audio differs around the cut (other padding, 0.8 s of noise), which moves the alignment of the
        // words next to it by up to 0.11 s (measured): starts within 0.1 s, ends within 0.2 s, against a shift of 20.
        for (ours, reference) in zip(gappedWords, plainWords) {
            let shift = reference.start < at ? 0 : 20.0
            #expect(abs(ours.start - (reference.start + shift)) <= 0.1, "\(ours.word)")
            #expect(abs(ours.end - (reference.end + shift)) <= 0.2, "\(ours.word)")
        }
        for segment in gapped.segments {
            #expect(segment.start == segment.words?.first?.start)
            #expect(segment.end == segment.words?.last?.end)
        }
    }

    @Test("only noise and silence: no segments")
    func noSpeech() async throws {
        let transcriber = Transcriber(model: try Fixtures.model("tiny.en"), voiceActivityDetector: try SileroVAD(contentsOf: Self.weights))
        let quiet = Self.gapped([Float](repeating: 0, count: 16_000 * 10), seconds: 20).samples
        let result = try await offPool { try transcriber.transcribe(quiet, options: Self.options) }
        #expect(result.segments.isEmpty)
        #expect(abs(result.info.duration - 30) < 1e-9)
    }

    @Test("segment times without words are mapped too")
    func withoutWords() async throws {
        let transcriber = Transcriber(model: try Fixtures.model("tiny.en"), voiceActivityDetector: try SileroVAD(contentsOf: Self.weights))
        let (gappedSamples, _) = Self.gapped(try Fixtures.samples("beckett.wav"), seconds: 20)
        var withoutWords = Self.options
        withoutWords.wordTimestamps = false
        let options = withoutWords
        let result = try await offPool { try transcriber.transcribe(gappedSamples, options: options) }
        let last = try #require(result.segments.last)
        #expect(last.end > 28 && last.end <= 30, "the end lies after the gap: \(last.end)")
        #expect(result.segments.first.map { $0.start < 1 } == true)
    }

    @Test("vadFilter without a detector is an invalid option")
    func needsDetector() throws {
        let transcriber = Transcriber(model: try Fixtures.model("tiny.en"))
        #expect {
            try transcriber.transcribe([Float](repeating: 0, count: 16_000), options: Self.options)
        } throws: { error in
            guard case TranscriptionError.invalidOption(let name, _) = error else { return false }
            return name == "vadFilter"
        }
    }
}
