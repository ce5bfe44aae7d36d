import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("Speech attributes on AttributedString")
struct SpeechAttributesTests {
    static let words = [
        TimedWord(text: " Ever", start: 0.5, end: 0.82, confidence: 0.91),
        TimedWord(text: " tried,", start: 0.82, end: 1.3, confidence: 0.75),
        TimedWord(text: " ever", start: 1.6, end: 1.9, confidence: 0.99),
        TimedWord(text: " failed.", start: 1.9, end: 2.44, confidence: 0.5),
    ]
    static let all = Set(SpeechTranscriber.ResultAttributeOption.allCases)

    @Test("runs read audioTimeRange and transcriptionConfidence through dynamic member lookup, one run per word")
    func runs() {
        let text = TranscriptText.attributed(Self.words, options: Self.all, etiquette: false)
        var starts: [Double] = [], ends: [Double] = [], confidences: [Double] = [], pieces: [String] = []
        for run in text.runs {
            if let range = run.audioTimeRange {
                starts.append(range.start.seconds)
                ends.append(range.end.seconds)
            }
            if let confidence = run.transcriptionConfidence { confidences.append(confidence) }
            pieces.append(String(text[run.range].characters))
        }
        #expect(pieces == Self.words.map(\.text))
        #expect(starts == [0.5, 0.82, 1.6, 1.9])
        #expect(ends == [0.82, 1.3, 1.9, 2.44])
        #expect(confidences == [0.91, 0.75, 0.99, 0.5])
        #expect(String(text.characters) == " Ever tried, ever failed.")
        #expect(text.runs[\.audioTimeRange].map(\.0?.start.timescale) == [16_000, 16_000, 16_000, 16_000])
    }

    @Test("options choose the attributes; without any, each word's run carries only its text (run.text)")
    func options() {
        let timesOnly = TranscriptText.attributed(Self.words, options: [.audioTimeRange], etiquette: false)
        #expect(timesOnly.runs.count == 4)
        #expect(timesOnly.runs.allSatisfy { $0.transcriptionConfidence == nil && $0.audioTimeRange != nil })
        let plain = TranscriptText.attributed(Self.words, options: [], etiquette: false)
        #expect(plain.runs.map(\.text) == Self.words.map(\.text))
        #expect(plain.runs.allSatisfy { $0.audioTimeRange == nil && $0.transcriptionConfidence == nil })
        #expect(String(plain.characters) == Self.words.map(\.text).joined())
        #expect(TranscriptText.attributed([], options: Self.all, etiquette: false) == AttributedString())
    }

    @Test("times round to the nearest sample, an end before the start becomes the start, confidence is clamped")
    func normalisation() {
        let text = TranscriptText.attributed(
            [
                TimedWord(text: " odd", start: 1.00003, end: 0.9, confidence: 1.2),
                TimedWord(text: " low", start: 2, end: 3, confidence: -0.1),
            ],
            options: Self.all, etiquette: false)
        let runs = Array(text.runs)
        #expect(runs[0].audioTimeRange == CMTimeRange(start: CMTime(sample: 16_000), duration: .zero))
        #expect(runs[0].transcriptionConfidence == 1)
        #expect(runs[1].transcriptionConfidence == 0)
    }

    /// A value encoded through its attribute key's `encode(_:to:)` and decoded through `decode(from:)`.
    struct KeyCoded<Key: CodableAttributedStringKey>: Codable where Key.Value: Equatable {
        var value: Key.Value
        init(_ value: Key.Value) { self.value = value }
        init(from decoder: any Decoder) throws { value = try Key.decode(from: decoder) }
        func encode(to encoder: any Encoder) throws { try Key.encode(value, to: encoder) }
    }

    @Test("Result.text(startingAt:) keeps the words heard from a time on, with their attributes; none without times")
    func textStartingAt() {
        let timed = TranscriptText.attributed(Self.words, options: Self.all, etiquette: false)
        let result = SpeechTranscriber.Result(
            alternatives: [timed], range: CMTimeRange(start: .zero, duration: CMTime(seconds: 2.44, preferredTimescale: 16_000)),
            resultsFinalizationTime: .zero)
        // A final that ended at 1.3 s covered " Ever tried,"; " ever failed." stays volatile.
        let rest = result.text(startingAt: CMTime(seconds: 1.3, preferredTimescale: 16_000))
        #expect(String(rest.characters) == " ever failed.")
        #expect(rest.runs.map(\.transcriptionConfidence) == [0.99, 0.5])
        #expect(String(result.text(startingAt: .zero).characters) == " Ever tried, ever failed.")
        #expect(result.text(startingAt: CMTime(seconds: 3, preferredTimescale: 16_000)).characters.isEmpty)
        // Without word times nothing is known to come after the final: nothing is kept.
        let untimed = SpeechTranscriber.Result(
            alternatives: [TranscriptText.attributed(Self.words, options: [], etiquette: false)], range: result.range,
            resultsFinalizationTime: .zero)
        #expect(untimed.text(startingAt: .zero).characters.isEmpty)
    }

    @Test("both attribute keys encode and decode their values; AttributedString itself is not Codable on Linux")
    func codable() throws {
        typealias Attributes = AttributeScopes.SpeechAttributes
        let range = CMTimeRange(samples: 8_000..<13_120)
        let data = try JSONEncoder().encode(KeyCoded<Attributes.TimeRangeAttribute>(range))
        #expect(try JSONDecoder().decode(KeyCoded<Attributes.TimeRangeAttribute>.self, from: data).value == range)
        let confidence = try JSONEncoder().encode(KeyCoded<Attributes.ConfidenceAttribute>(0.75))
        #expect(try JSONDecoder().decode(KeyCoded<Attributes.ConfidenceAttribute>.self, from: confidence).value == 0.75)
        #expect(Attributes.TimeRangeAttribute.name == "AuralKit.audioTimeRange")
        #expect(Attributes.ConfidenceAttribute.name == "AuralKit.transcriptionConfidence")
    }

    @Test("rangeOfAudioTimeRangeAttributes(intersecting:) spans the first to the last overlapping run")
    func rangeOfAudioTimeRange() throws {
        let text = TranscriptText.attributed(Self.words, options: Self.all, etiquette: false)
        func covered(_ start: Double, _ end: Double) -> String? {
            let query = CMTimeRange(
                start: CMTime(seconds: start, preferredTimescale: 16_000),
                end: CMTime(seconds: end, preferredTimescale: 16_000))
            return text.rangeOfAudioTimeRangeAttributes(intersecting: query).map { String(text[$0].characters) }
        }
        #expect(covered(1.0, 1.7) == " tried, ever")
        #expect(covered(0, 0.5) == nil, "touching the first word's start is not overlapping")
        #expect(covered(1.35, 1.55) == nil, "the pause between words")
        #expect(covered(0, 10) == " Ever tried, ever failed.")
        #expect(covered(1.9, 1.9) == " failed.", "an empty range overlaps the run that contains its start")
        let untimed = TranscriptText.attributed(Self.words, options: [.transcriptionConfidence], etiquette: false)
        #expect(untimed.rangeOfAudioTimeRangeAttributes(intersecting: CMTimeRange(samples: 0..<100_000)) == nil)
    }
}
