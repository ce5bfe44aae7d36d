import AuralWhisper
import Foundation

/// The full transcription as pretty-printed JSON, with snake_case keys in sorted order.
///
/// ```json
/// {
///   "duration" : 2.5,
///   "language" : "en",
///   "language_probability" : 0.94,
///   "segments" : [
///     {
///       "avg_logprob" : -0.25,
///       "compression_ratio" : 1.1,
///       "end" : 2.5,
///       "id" : 0,
///       "no_speech_prob" : 0.01,
///       "seek" : 0,
///       "start" : 0,
///       "temperature" : 0,
///       "text" : " Hello there.",
///       "tokens" : [
///         50364,
///         …
///       ],
///       "words" : [
///         {
///           "end" : 0.5,
///           "probability" : 0.88,
///           "start" : 0,
///           "word" : " Hello"
///         },
///         …
///       ]
///     }
///   ],
///   "text" : " Hello there."
/// }
/// ```
///
/// Field names and meanings follow openai/whisper's JSON output and faster-whisper's `Segment`. `text` is
/// the segments' texts joined as they are, so it keeps Whisper's leading space. `words` is left out of a
/// segment when word timestamps were not asked for. Times are in seconds. A non-finite number, which JSON
/// cannot hold, is written as the string `"NaN"`, `"Infinity"` or `"-Infinity"`.
public struct JSONWriter: TranscriptWriter {
    /// Processing times to include as `timings` (`model_load_seconds`, `transcription_seconds`); nil leaves them out.
    public var timings: TranscriptionTimings?

    /// Creates a JSON writer; with `timings`, the document says how long loading and transcribing took.
    public init(timings: TranscriptionTimings? = nil) {
        self.timings = timings
    }

    /// The JSON document, ending with a newline.
    public func render(segments: [Segment], info: TranscriptionInfo) -> String {
        let document = Document(
            language: info.language,
            languageProbability: info.languageProbability,
            duration: info.duration,
            text: segments.map(\.text).joined(),
            segments: segments.map(SegmentRecord.init),
            timings: timings
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
        } catch {
            // Only non-finite numbers can make encoding fail, and the strategy above writes them as strings.
            preconditionFailure("Encoding a transcript as JSON failed: \(error)")
        }
    }
}

/// The top-level JSON object.
private struct Document: Encodable {
    var language: String
    var languageProbability: Double
    var duration: Double
    var text: String
    var segments: [SegmentRecord]
    var timings: TranscriptionTimings?

    enum CodingKeys: String, CodingKey {
        case language
        case languageProbability = "language_probability"
        case duration, text, segments, timings
    }
}

/// How long a transcription took, in seconds of wall time.
public struct TranscriptionTimings: Encodable, Sendable, Equatable {
    /// Reading the model folder into memory.
    public var modelLoadSeconds: Double
    /// Decoding the audio file and transcribing it.
    public var transcriptionSeconds: Double

    public init(modelLoadSeconds: Double, transcriptionSeconds: Double) {
        self.modelLoadSeconds = modelLoadSeconds
        self.transcriptionSeconds = transcriptionSeconds
    }

    enum CodingKeys: String, CodingKey {
        case modelLoadSeconds = "model_load_seconds"
        case transcriptionSeconds = "transcription_seconds"
    }
}

/// One segment in the JSON output: openai/whisper's segment fields, which OpenAI's `verbose_json` also uses
/// (`aural serve` leaves the words out of it).
package struct SegmentRecord: Encodable {
    var id: Int
    var seek: Int
    var start: Double
    var end: Double
    var text: String
    var tokens: [Int]
    var temperature: Double
    var avgLogprob: Double
    var compressionRatio: Double
    var noSpeechProb: Double
    var words: [WordRecord]?

    enum CodingKeys: String, CodingKey {
        case id, seek, start, end, text, tokens, temperature
        case avgLogprob = "avg_logprob"
        case compressionRatio = "compression_ratio"
        case noSpeechProb = "no_speech_prob"
        case words
    }

    package init(_ segment: Segment) {
        self.init(segment, includingWords: true)
    }

    package init(_ segment: Segment, includingWords: Bool) {
        id = segment.id
        seek = segment.seek
        start = segment.start
        end = segment.end
        text = segment.text
        tokens = segment.tokens
        temperature = segment.temperature
        avgLogprob = segment.avgLogprob
        compressionRatio = segment.compressionRatio
        noSpeechProb = segment.noSpeechProb
        words = includingWords ? segment.words?.map(WordRecord.init) : nil
    }
}

/// One word in the JSON output.
package struct WordRecord: Encodable {
    var word: String
    var start: Double
    var end: Double
    var probability: Double

    init(_ word: WordTiming) {
        self.word = word.word
        start = word.start
        end = word.end
        probability = word.probability
    }
}
