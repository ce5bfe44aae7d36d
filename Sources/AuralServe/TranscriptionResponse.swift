import AuralKit
import AuralWhisper
import Foundation

/// A finished transcription as the body OpenAI's API answers for each `response_format`.
struct TranscriptionResponse {
    var segments: [Segment]
    var info: TranscriptionInfo
    var task: WhisperTask

    /// The whole text: the segments' texts joined, without the leading space Whisper puts on each.
    var text: String {
        segments.map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The body and its content type.
    func body(for request: TranscriptionRequest) -> (contentType: String, body: Data) {
        switch request.responseFormat {
        case .json: return ("application/json", Self.encode(Plain(text: text, usage: usage)))
        case .text: return ("text/plain; charset=utf-8", Data((text + "\n").utf8))
        case .srt: return ("text/plain; charset=utf-8", Data(SRTWriter().render(segments: segments, info: info).utf8))
        case .vtt: return ("text/vtt; charset=utf-8", Data(VTTWriter().render(segments: segments, info: info).utf8))
        case .verboseJSON: return ("application/json", Self.encode(verbose(request)))
        }
    }

    /// OpenAI's `usage` for audio billed by duration: whole seconds, rounded up.
    var usage: Usage { Usage(type: "duration", seconds: info.duration.rounded(.up)) }

    struct Usage: Encodable {
        var type: String
        var seconds: Double
    }

    struct Plain: Encodable {
        var text: String
        var usage: Usage
    }

    struct Verbose: Encodable {
        var task: String
        var language: String
        var duration: Double
        var text: String
        var segments: [SegmentRecord]?
        var words: [Word]?
        var usage: Usage
    }

    struct Word: Encodable {
        var word: String
        var start: Double
        var end: Double
    }

    private func verbose(_ request: TranscriptionRequest) -> Verbose {
        Verbose(
            task: task.rawValue, language: Self.languageName(info.language), duration: info.duration, text: text,
            segments: request.segmentTimestamps ? segments.map { SegmentRecord($0, includingWords: false) } : nil,
            words: request.wordTimestamps
                ? segments.flatMap { $0.words ?? [] }.map {
                    Word(word: $0.word.trimmingCharacters(in: .whitespaces), start: $0.start, end: $0.end)
                } : nil,
            usage: usage)
    }

    /// Whisper's name for a language code, as OpenAI's `verbose_json` gives it ("en" → "english").
    static func languageName(_ code: String) -> String {
        Locale(identifier: "en").localizedString(forLanguageCode: code)?.lowercased() ?? code
    }

    /// The one JSON encoding of the server's bodies and events.
    static func encode<Value: Encodable>(_ value: Value) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
