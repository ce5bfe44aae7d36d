import AuralKit
import AuralWhisper
import Foundation
import Testing

@Suite("TranscriptWriter")
struct TranscriptWriterTests {
    /// Three segments covering what writers must handle: Whisper's leading space, a `-->` in the text,
    /// quotes and non-ASCII letters, a time past one hour, and word timings on one segment only.
    static let segments: [Segment] = [
        Segment(
            id: 0, seek: 0, start: 0, end: 2.5, text: " Nell, it's \"café\" time.", tokens: [50364, 13602, 50489],
            temperature: 0, avgLogprob: -0.25, compressionRatio: 1.125, noSpeechProb: 0.015625,
            words: [
                WordTiming(word: " Nell,", start: 0, end: 0.5, probability: 0.875),
                WordTiming(word: " it's", start: 0.5, end: 0.999, probability: 0.5),
                WordTiming(word: " \"café\"", start: 0.999, end: 1.75, probability: 0.75),
                WordTiming(word: " time.", start: 1.75, end: 2.5, probability: 1),
            ]
        ),
        Segment(
            id: 1, seek: 250, start: 2.5, end: 61.0625, text: " Then --> now   ", tokens: [50489, 1396, 51417],
            temperature: 0.2, avgLogprob: -0.5, compressionRatio: 0.75, noSpeechProb: 0.5, words: nil
        ),
        Segment(
            id: 2, seek: 360_000, start: 3_661.001, end: 3_725.5, text: " Much later.", tokens: [50364, 4380, 51414],
            temperature: 0, avgLogprob: -1, compressionRatio: 1, noSpeechProb: 0, words: nil
        ),
    ]

    static let info = TranscriptionInfo(
        language: "en", languageProbability: 0.9375,
        allLanguageProbabilities: [LanguageProbability(language: "en", probability: 0.9375)], duration: 3_726
    )

    @Test("renders each format exactly like its snapshot", arguments: TranscriptFormat.allCases)
    func matchesSnapshot(_ format: TranscriptFormat) throws {
        let rendered = format.writer.render(segments: Self.segments, info: Self.info)
        let snapshot = Self.snapshotDirectory.appendingPathComponent("transcript.\(format.fileExtension)")
        if ProcessInfo.processInfo.environment["AURAL_RECORD_SNAPSHOTS"] == "1" {
            try rendered.write(to: snapshot, atomically: true, encoding: .utf8)
        }
        #expect(rendered == (try String(contentsOf: snapshot, encoding: .utf8)))
    }

    @Test("renders no segments as an empty file, or just the header for WebVTT")
    func emptyTranscript() throws {
        #expect(TextWriter().render(segments: [], info: Self.info) == "")
        #expect(SRTWriter().render(segments: [], info: Self.info) == "")
        #expect(VTTWriter().render(segments: [], info: Self.info) == "WEBVTT\n\n")
        let json = try JSONSerialization.jsonObject(with: Data(JSONWriter().render(segments: [], info: Self.info).utf8))
        let object = try #require(json as? [String: Any])
        #expect((object["segments"] as? [Any])?.isEmpty == true)
        #expect(object["text"] as? String == "")
    }

    /// A time in seconds and how SRT must show it.
    static let timestamps: [(seconds: Double, srt: String)] = [
        (0, "00:00:00,000"),
        (0.999, "00:00:00,999"),
        (0.9995, "00:00:01,000"),  // 999.5 ms rounds to 1000 ms and carries into the seconds
        (0.0005, "00:00:00,000"),  // half a millisecond rounds to even, like Python's round
        (0.0015, "00:00:00,002"),
        (59.9999, "00:01:00,000"),
        (3_599.999, "00:59:59,999"),
        (3_600, "01:00:00,000"),
        (3_725.5, "01:02:05,500"),
        (360_000, "100:00:00,000"),
        (-0.25, "00:00:00,000"),
        (.nan, "00:00:00,000"),
    ]

    @Test("formats SRT times like openai/whisper, clamping negatives to zero", arguments: timestamps)
    func srtTimestamp(_ example: (seconds: Double, srt: String)) {
        let segment = Self.segment(start: example.seconds, end: example.seconds)
        let expected = "1\n\(example.srt) --> \(example.srt)\nHi.\n\n"
        #expect(SRTWriter().render(segments: [segment], info: Self.info) == expected)
    }

    @Test("formats WebVTT times with hours and a dot before the milliseconds")
    func vttTimestamp() {
        let segment = Self.segment(start: 0.999, end: 3_725.5)
        let expected = "WEBVTT\n\n00:00:00.999 --> 01:02:05.500\nHi.\n\n"
        #expect(VTTWriter().render(segments: [segment], info: Self.info) == expected)
    }

    @Test("leaves out words in JSON when word timestamps were not asked for")
    func jsonWithoutWords() throws {
        let rendered = JSONWriter().render(segments: [Self.segment(start: 1, end: 2)], info: Self.info)
        let json = try JSONSerialization.jsonObject(with: Data(rendered.utf8))
        let segments = try #require((json as? [String: Any])?["segments"] as? [[String: Any]])
        #expect(segments.first?["words"] == nil)
        #expect(segments.first?["start"] as? Double == 1)
    }

    @Test("writes non-finite scores in JSON as strings instead of failing")
    func jsonNonFinite() throws {
        var segment = Self.segment(start: 0, end: 1)
        segment.avgLogprob = -.infinity
        segment.compressionRatio = .nan
        let rendered = JSONWriter().render(segments: [segment], info: Self.info)
        #expect(rendered.contains("\"avg_logprob\" : \"-Infinity\""))
        #expect(rendered.contains("\"compression_ratio\" : \"NaN\""))
    }

    @Test("names each format by its file extension")
    func formats() {
        #expect(TranscriptFormat.allCases.map(\.fileExtension) == ["txt", "srt", "vtt", "json"])
        #expect(TranscriptFormat(rawValue: "vtt") == .vtt)
        #expect(TranscriptFormat.srt.writer is SRTWriter)
    }

    // MARK: - Helpers

    static let snapshotDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Snapshots")

    static func segment(start: Double, end: Double) -> Segment {
        Segment(
            id: 0, seek: 0, start: start, end: end, text: " Hi.", tokens: [50364, 17155, 13, 50414], temperature: 0,
            avgLogprob: -0.5, compressionRatio: 0.5, noSpeechProb: 0.25, words: nil
        )
    }
}
