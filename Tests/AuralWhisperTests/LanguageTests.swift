import Foundation
import Testing
@testable import AuralWhisper

@Suite("Languages")
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

    @Test("an unknown language code is refused with a clear error")
    func unknownLanguage() throws {
        let model = try Fixtures.model("base")
        #expect(throws: WhisperModelError.unsupportedLanguage(code: "xx")) {
            try Transcriber(model: model).transcribe([Float](repeating: 0, count: 16_000), options: DecodingOptions(language: "xx"))
        }
    }

    @Test("translation needs a multilingual model")
    func translateOnEnglishOnly() throws {
        let model = try Fixtures.model("tiny.en")
        #expect(throws: WhisperModelError.self) {
            try Transcriber(model: model).transcribe([Float](repeating: 0, count: 16_000), options: DecodingOptions(task: .translate))
        }
    }
}
