import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("Transcriber", .heavyWork)
struct TranscriberTests {
    static let greedyCases = [
        "tiny.en-beckett-greedy-nowords", "tiny.en-two_cities-greedy-nowords", "tiny.en-endgame_nagg_nell-greedy-nowords",
        "base-beckett-greedy-nowords", "base-two_cities-greedy-nowords",
    ]

    /// Runs the engine with the options faster-whisper was called with for `golden`.
    static func transcribe(_ golden: GoldenTranscript, modelName: String) throws -> (TranscriptionInfo, [Segment]) {
        let model = try Fixtures.model(modelName)
        let samples = try Fixtures.samples(golden.recording)
        let options = DecodingOptions(
            language: golden.call.language, beamSize: golden.call.beamSize, wordTimestamps: golden.call.wordTimestamps ?? false)
        return try Transcriber(model: model).transcribe(samples, options: options)
    }

    @Test("greedy decoding gives faster-whisper's exact tokens and segment times", arguments: greedyCases)
    func greedyIsTokenExact(name: String) throws {
        let golden = try GoldenTranscript.load(name)
        let (info, segments) = try Self.transcribe(golden, modelName: String(name.prefix { $0 != "-" }))
        #expect(info.language == golden.info.language)
        #expect(abs(info.languageProbability - golden.info.languageProbability) < 1e-3)
        #expect(segments.map(\.tokens) == golden.segments.map(\.tokens))
        #expect(segments.map(\.text) == golden.segments.map(\.text))
        #expect(segments.map { ($0.start * 100).rounded() } == golden.segments.map { ($0.start * 100).rounded() })
        #expect(segments.map { ($0.end * 100).rounded() } == golden.segments.map { ($0.end * 100).rounded() })
        for (ours, theirs) in zip(segments, golden.segments) {
            #expect(abs(ours.avgLogprob - theirs.avgLogprob) < 1e-3)
            #expect(abs(ours.noSpeechProb - theirs.noSpeechProb) < 1e-3)
        }
    }

    @Test("segments are ordered, inside the audio, and numbered from 1")
    func invariants() throws {
        let model = try Fixtures.model("tiny.en")
        let samples = try Fixtures.samples("two_cities.wav")
        let duration = Double(samples.count) / 16_000
        let (info, segments) = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(beamSize: 1))
        #expect(abs(info.duration - duration) < 1e-9)
        #expect(segments.map(\.id) == Array(1...segments.count))
        var previousEnd = 0.0
        for segment in segments {
            #expect(segment.start >= previousEnd - 1e-9)
            #expect(segment.end > segment.start)
            #expect(segment.end <= duration + 0.5)
            previousEnd = segment.end
        }
    }

    @Test("segments stream out before the transcription ends")
    func streamsSegments() async throws {
        let model = try Fixtures.model("tiny.en")
        let samples = try Fixtures.samples("two_cities.wav")
        var kinds: [String] = []
        for try await event in Transcriber(model: model).events(samples, options: DecodingOptions(beamSize: 1)) {
            switch event {
            case .info: kinds.append("info")
            case .segment: kinds.append("segment")
            case .progress(let fraction): kinds.append(fraction >= 1 ? "done" : "progress")
            }
        }
        #expect(kinds.first == "info")
        #expect(kinds.last == "done")
        // The first window's segments come before the second window is decoded.
        let firstProgress = try #require(kinds.firstIndex(where: { $0 == "progress" }))
        #expect(kinds[..<firstProgress].contains("segment"))
    }

    @Test("an initial prompt conditions the first window")
    func initialPrompt() throws {
        let model = try Fixtures.model("tiny.en")
        let samples = try Fixtures.samples("beckett.wav")
        let plain = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(beamSize: 1)).segments
        let prompted = try Transcriber(model: model).transcribe(
            samples, options: DecodingOptions(beamSize: 1, initialPrompt: "EVER TRIED. EVER FAILED. NO MATTER.")).segments
        let plainText = plain.map(\.text).joined()
        let promptedText = prompted.map(\.text).joined()
        #expect(plainText.contains("Ever tried"))
        #expect(promptedText != plainText)
    }
}

@Suite("Transcriber with beam search and word timestamps", .heavyWork)
struct BeamAndWordsTests {
    static let cases = [
        "tiny.en-beckett-beam5", "tiny.en-two_cities-beam5", "tiny.en-endgame_nagg_nell-beam5",
        "base-beckett-beam5", "base-two_cities-beam5",
        "tiny.en-beckett-greedy", "base-endgame_nagg_nell-greedy",
        "base-espeak_de-greedy", "base-espeak_es-beam5", "base-espeak_fr-greedy",
    ]

    @Test("matches faster-whisper's tokens, segment times and word timings", arguments: cases)
    func matchesReference(name: String) throws {
        let golden = try GoldenTranscript.load(name)
        let (info, segments) = try TranscriberTests.transcribe(golden, modelName: String(name.prefix { $0 != "-" }))
        #expect(info.language == golden.info.language)
        #expect(segments.map(\.tokens) == golden.segments.map(\.tokens))
        #expect(segments.map(\.text) == golden.segments.map(\.text))
        for (ours, theirs) in zip(segments, golden.segments) {
            #expect(abs(ours.start - theirs.start) < 0.011)
            #expect(abs(ours.end - theirs.end) < 0.011)
            let words = ours.words ?? []
            let reference = golden.words(of: theirs)
            #expect(words.map(\.word) == reference.map(\.word))
            for (word, expected) in zip(words, reference) {
                #expect(abs(word.start - expected.start) <= 0.1)
                #expect(abs(word.end - expected.end) <= 0.1)
                #expect(abs(word.probability - expected.probability) <= 1e-3)
            }
            // What a user sees holds together: the words make the text, in order, at their segment. (faster-whisper
            // itself lets a first word start up to a few tenths before its segment, as in base-two_cities-beam5.)
            #expect(words.map(\.word).joined() == ours.text)
            #expect(zip(words, words.dropFirst()).allSatisfy { $0.end <= $1.start + 1e-9 })
            if let first = words.first, let last = words.last {
                #expect(first.start >= ours.start - 0.5 && last.end <= ours.end + 0.5)
            }
        }
    }
}
