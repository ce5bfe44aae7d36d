import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("SpeechTranscriber.Result and Preset")
struct SpeechTranscriberTests {
    static func result(range: Range<Int>, finalizedThrough sample: Int) -> SpeechTranscriber.Result {
        SpeechTranscriber.Result(
            alternatives: [AttributedString(" Hello."), AttributedString(" Yellow.")],
            range: CMTimeRange(samples: range),
            resultsFinalizationTime: CMTime(sample: sample))
    }

    @Test(
        "isFinal is resultsFinalizationTime >= range.end",
        arguments: [(32_000, true), (40_000, true), (31_999, false), (0, false)])
    func isFinal(finalization: Int, expected: Bool) {
        #expect(Self.result(range: 16_000..<32_000, finalizedThrough: finalization).isFinal == expected)
    }

    @Test("text is the first alternative; description says final or volatile")
    func text() {
        let result = Self.result(range: 16_000..<32_000, finalizedThrough: 32_000)
        #expect(result.text == result.alternatives[0])
        #expect(String(result.text.characters) == " Hello.")
        #expect(result.description == "final [1.0 s, 2.0 s):  Hello.")
        #expect(Self.result(range: 0..<16_000, finalizedThrough: 0).description.hasPrefix("volatile"))
    }

    @Test("a speech detector result is final by the same rule")
    func detectorResult() {
        let range = CMTimeRange(samples: 0..<1_600)
        #expect(SpeechDetector.Result(range: range, resultsFinalizationTime: range.end, speechDetected: true).isFinal)
        #expect(!SpeechDetector.Result(range: range, resultsFinalizationTime: .zero, speechDetected: false).isFinal)
    }

    @Test(
        "presets carry exactly the options of Apple's table",
        arguments: [
            (SpeechTranscriber.Preset.transcription, [], []),
            (.transcriptionWithAlternatives, [.alternativeTranscriptions], []),
            (.timeIndexedTranscriptionWithAlternatives, [.alternativeTranscriptions], [.audioTimeRange]),
            (.progressiveTranscription, [.volatileResults, .fastResults], []),
            (.timeIndexedProgressiveTranscription, [.volatileResults, .fastResults], [.audioTimeRange]),
        ]
            as [(
                SpeechTranscriber.Preset, Set<SpeechTranscriber.ReportingOption>,
                Set<SpeechTranscriber.ResultAttributeOption>
            )])
    func presets(
        preset: SpeechTranscriber.Preset, reporting: Set<SpeechTranscriber.ReportingOption>,
        attributes: Set<SpeechTranscriber.ResultAttributeOption>
    ) {
        #expect(preset.transcriptionOptions.isEmpty)
        #expect(preset.reportingOptions == reporting)
        #expect(preset.attributeOptions == attributes)
    }

    @Test("a custom preset keeps its options; option enums list all cases")
    func customPreset() {
        var preset = SpeechTranscriber.Preset(
            transcriptionOptions: [.etiquetteReplacements], reportingOptions: [.volatileResults],
            attributeOptions: [.transcriptionConfidence])
        #expect(preset.transcriptionOptions == [.etiquetteReplacements])
        preset.attributeOptions.insert(.audioTimeRange)
        #expect(preset.attributeOptions == Set(SpeechTranscriber.ResultAttributeOption.allCases))
        #expect(SpeechTranscriber.ReportingOption.allCases.count == 3)
        #expect(Set([SpeechTranscriber.Preset.transcription, .progressiveTranscription, .transcription]).count == 2)
    }
}
