import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("Languages", .heavyWork)
struct LanguageTests {
    @Test("base detects English on real speech with faster-whisper's probability", arguments: ["beckett", "two_cities"])
    func detectsEnglish(recording: String) throws {
        let golden = try GoldenTranscript.load("base-\(recording)-greedy-nowords")
        let model = try Fixtures.model("base")
        let probabilities = try Transcriber(model: model).detectLanguage(try Fixtures.samples("\(recording).wav"))
        #expect(probabilities.count == 99)
        #expect(probabilities[0].language == "en")
        #expect(abs(probabilities[0].probability - golden.info.languageProbability) < 1e-3)
        #expect(abs(probabilities.map(\.probability).reduce(0, +) - 1) < 1e-6)
    }

    @Test("base detects German, Spanish and French speech", arguments: ["de", "es", "fr"])
    func detectsOtherLanguages(language: String) throws {
        let golden = try GoldenTranscript.load("base-espeak_\(language)-greedy")
        let model = try Fixtures.model("base")
        let probabilities = try Transcriber(model: model).detectLanguage(try Fixtures.samples("espeak_\(language).wav"))
        #expect(probabilities[0].language == language)
        #expect(abs(probabilities[0].probability - golden.info.languageProbability) < 1e-3)
    }

    @Test("translating German speech gives English text")
    func translatesToEnglish() throws {
        let model = try Fixtures.model("base")
        let samples = try Fixtures.samples("espeak_de.wav")
        let (info, segments) = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(task: .translate, beamSize: 1))
        #expect(info.language == "de")
        let text = segments.map(\.text).joined().lowercased()
        #expect(text.contains("good morning"))
        #expect(text.contains("park"))
        #expect(!text.contains("guten"))
    }

    @Test("an unknown language code is refused with a clear error")
    func unknownLanguage() throws {
        let model = try Fixtures.model("base")
        #expect(throws: TranscriptionError.unsupportedLanguage(code: "xx")) {
            try Transcriber(model: model).transcribe([Float](repeating: 0, count: 16_000), options: DecodingOptions(language: "xx"))
        }
    }

    @Test("translation needs a multilingual model")
    func translateOnEnglishOnly() throws {
        let model = try Fixtures.model("tiny.en")
        #expect(throws: TranscriptionError.needsMultilingualModel(feature: "translation")) {
            try Transcriber(model: model).transcribe([Float](repeating: 0, count: 16_000), options: DecodingOptions(task: .translate))
        }
    }
}
