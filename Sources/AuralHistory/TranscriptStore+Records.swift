import AuralKit
import AuralWhisper
import Foundation

extension TranscriptStore {
    /// A stored session's identifier: SQLite's row id, shown to people as a plain number ("12").
    public struct SessionID: RawRepresentable, Hashable, Sendable, Codable, LosslessStringConvertible {
        /// The row id; positive for a stored session.
        public let rawValue: Int64

        /// The identifier with this row id.
        public init(rawValue: Int64) { self.rawValue = rawValue }

        /// The identifier written as a number ("12"); nil for anything else.
        public init?(_ description: String) {
            guard let value = Int64(description.trimmingCharacters(in: .whitespaces)) else { return nil }
            rawValue = value
        }

        /// The number, as `aural history` shows it.
        public var description: String { String(rawValue) }
    }

    /// What is known when a session starts; passed to `beginSession(_:)`.
    public struct SessionInfo: Sendable, Hashable {
        /// What was transcribed, as a person would name it: a file's path, an input device's or an application's name.
        public var source: String
        /// The language that was spoken, given or detected ("en", "de-CH"); nil when unknown.
        public var locale: Locale?
        /// The model that transcribed it ("tiny.en", or a model folder's path); nil when unknown.
        public var model: String?
        /// When the session started (wall-clock time).
        public var startedAt: Date
        /// How sure language detection was of `locale`, 0…1; nil when the language was given rather than detected.
        public var languageProbability: Double?

        /// A session of `source` that starts at `startedAt` (now by default).
        public init(
            source: String, locale: Locale? = nil, model: String? = nil, startedAt: Date = Date(),
            languageProbability: Double? = nil
        ) {
            self.source = source
            self.locale = locale
            self.model = model
            self.startedAt = startedAt
            self.languageProbability = languageProbability
        }
    }

    /// A stored session as listed: what was transcribed, when, how long, and its first words.
    public struct Session: Sendable, Hashable, Identifiable {
        /// The session's identifier.
        public let id: SessionID
        /// What was transcribed (`SessionInfo.source`).
        public let source: String
        /// The language (`SessionInfo.locale`); nil when unknown.
        public let locale: Locale?
        /// The model (`SessionInfo.model`); nil when unknown.
        public let model: String?
        /// When the session started.
        public let startedAt: Date
        /// When it ended; nil while it runs, or when the process ended without `endSession(_:at:audioDuration:)`
        /// (its final results are stored all the same).
        public let endedAt: Date?
        /// Seconds of audio: the duration given to `endSession`, else the end of the last result, else 0.
        public let duration: Double
        /// How many final results are stored.
        public let resultCount: Int
        /// The first words of the transcript, at most about 80 characters, with "…" when there is more.
        public let preview: String
        /// `SessionInfo.languageProbability`.
        let languageProbability: Double?
    }

    /// A stored session with its final results, in order: what `transcript(_:)` returns.
    ///
    /// `results` gives them back as the session reported them; `segments` and `info` are the input of the transcript
    /// writers, so that an export writes what `TranscriptFormat.writer` wrote for the same results:
    /// ```swift
    /// let transcript = try store.transcript(id)
    /// let srt = TranscriptFormat.srt.writer.render(segments: transcript.segments, info: transcript.info)
    /// ```
    public struct Transcript: Sendable {
        /// The session.
        public let session: Session
        /// The stored rows, in order.
        let entries: [StoredResult]

        /// The final results, each with its range and, when they were stored, its words' `audioTimeRange` and
        /// `transcriptionConfidence` attributes.
        public var results: [SpeechTranscriber.Result] { entries.map(\.result) }

        /// The results as the engine's segments, with exactly the stored times and text. A result stored from a
        /// `Segment` gets back its engine details (tokens, temperature, scores); one stored from a
        /// `SpeechTranscriber.Result` has empty tokens and zero scores, and `words` when it had timed words. A live
        /// result that is punctuation after the word before it (a session makes a sentence's period final once a
        /// later decode or a pause confirms it) joins the segment before, so no subtitle or line holds a lone ".".
        public var segments: [Segment] {
            var joined: [StoredResult] = []
            for entry in entries {
                if entry.continuesTheResultBefore, !joined.isEmpty {
                    joined[joined.count - 1].append(entry)
                } else {
                    joined.append(entry)
                }
            }
            return joined.enumerated().map { $1.segment(index: $0) }
        }

        /// The language (from `locale`), its probability (1 when it was given) and the duration in seconds.
        public var info: TranscriptionInfo {
            TranscriptionInfo(
                language: session.locale.map { $0.language.languageCode?.identifier ?? $0.identifier } ?? "",
                languageProbability: session.languageProbability ?? 1, allLanguageProbabilities: [],
                duration: session.duration)
        }

        /// The whole text: the results' texts joined as they are (each keeps its leading space).
        public var text: String { entries.map(\.text).joined() }
    }

    /// A stored result that matches a search, with the matching words marked.
    public struct SearchHit: Sendable, Hashable {
        /// The session the result belongs to.
        public let session: Session
        /// Where in the session's audio the result was heard.
        public let range: CMTimeRange
        /// The result's text.
        public let text: String
        /// The words of `text` that match the search (whole tokens, stems included: "cities" for "city").
        public let matches: [Range<String.Index>]
    }
}

/// One stored final result: its text and times, its words, and the engine's details when it came from a `Segment`.
struct StoredResult: Sendable {
    var text: String
    /// Seconds from the start of the session's audio.
    var start: Double
    /// Seconds from the start of the session's audio.
    var end: Double
    var words: [StoredWord]
    var details: EngineDetails?

    /// The result as a session reports it: final, with per-word attributes where stored.
    var result: SpeechTranscriber.Result {
        var text = AttributedString()
        if words.isEmpty { text = AttributedString(self.text) }
        for word in words {
            var piece = AttributedString(word.text)
            piece[AttributeScopes.SpeechAttributes.RunTextAttribute.self] = word.text
            if let start = word.start, let end = word.end {
                piece[AttributeScopes.SpeechAttributes.TimeRangeAttribute.self] = CMTimeRange(
                    start: Self.time(start), end: max(Self.time(start), Self.time(end)))
            }
            if let confidence = word.confidence {
                piece[AttributeScopes.SpeechAttributes.ConfidenceAttribute.self] = confidence
            }
            text.append(piece)
        }
        let range = CMTimeRange(start: Self.time(start), end: max(Self.time(start), Self.time(end)))
        return SpeechTranscriber.Result(alternatives: [text], range: range, resultsFinalizationTime: range.end)
    }

    /// Whether this is a live result that goes on with the one before: it starts with punctuation, not a word.
    var continuesTheResultBefore: Bool {
        details == nil && WordPunctuation.startsWithMark(text)
    }

    /// Adds `other`'s text and time to this result; punctuation words join the last word.
    mutating func append(_ other: StoredResult) {
        text += other.text
        end = max(end, other.end)
        for word in other.words {
            if let last = words.indices.last, WordPunctuation.startsWithMark(word.text) {
                words[last].text += word.text
            } else {
                words.append(word)
            }
        }
    }

    /// The result as the engine's segment `index` (from 0) of the session.
    func segment(index: Int) -> Segment {
        Segment(
            id: details?.id ?? index + 1, seek: details?.seek ?? Int((start * 100).rounded()), start: start, end: end,
            text: text, tokens: details?.tokens ?? [], temperature: details?.temperature ?? 0,
            avgLogprob: details?.avgLogprob ?? 0, compressionRatio: details?.compressionRatio ?? 0,
            noSpeechProb: details?.noSpeechProb ?? 0,
            words: words.isEmpty
                ? nil
                : words.map {
                    WordTiming(word: $0.text, start: $0.start ?? start, end: $0.end ?? end, probability: $0.confidence ?? 0)
                })
    }

    private static func time(_ seconds: Double) -> CMTime {
        CMTime(seconds: seconds, preferredTimescale: Int32(historyTimescale))
    }
}

extension StoredResult {
    /// A final result of a session: its text, range and word runs (`runText`, `audioTimeRange`,
    /// `transcriptionConfidence`, each where present).
    init(_ result: SpeechTranscriber.Result) {
        var words: [StoredWord] = []
        for run in result.text.runs {
            guard let word = run[AttributeScopes.SpeechAttributes.RunTextAttribute.self] else { continue }
            let range = run[AttributeScopes.SpeechAttributes.TimeRangeAttribute.self]
            words.append(StoredWord(
                text: word, start: range.map(\.start.seconds), end: range.map(\.end.seconds),
                confidence: run[AttributeScopes.SpeechAttributes.ConfidenceAttribute.self]))
        }
        self.init(
            text: String(result.text.characters), start: result.range.start.seconds, end: result.range.end.seconds,
            words: words, details: nil)
    }

    /// A segment of a file transcription, with its words and engine details.
    init(_ segment: Segment) {
        self.init(
            text: segment.text, start: segment.start, end: segment.end,
            words: (segment.words ?? []).map {
                StoredWord(text: $0.word, start: $0.start, end: $0.end, confidence: $0.probability)
            },
            details: EngineDetails(
                id: segment.id, seek: segment.seek, tokens: segment.tokens, temperature: segment.temperature,
                avgLogprob: segment.avgLogprob, compressionRatio: segment.compressionRatio,
                noSpeechProb: segment.noSpeechProb))
    }
}

/// One stored word; times in seconds from the start of the session's audio, confidence 0…1.
struct StoredWord: Sendable {
    var text: String
    var start: Double?
    var end: Double?
    var confidence: Double?
}

/// The engine's segment fields that `JSONWriter` writes besides times and text; stored as JSON.
struct EngineDetails: Codable, Sendable {
    var id: Int
    var seek: Int
    var tokens: [Int]
    var temperature: Double
    var avgLogprob: Double
    var compressionRatio: Double
    var noSpeechProb: Double
}

/// The timescale of stored times read back as `CMTime`: 16 kHz samples, the session's own.
let historyTimescale = 16_000
