import CoreMedia
import Foundation

extension SpeechTranscriber {
    /// What the session heard in a span of audio: the most likely text and its alternatives, with per-word times
    /// and confidences as attributes (see `AttributeScopes.SpeechAttributes`).
    ///
    /// A volatile result (`isFinal == false`) is a guess that a later result covering the same range replaces; a
    /// final result never changes, and final results follow each other without overlap.
    public struct Result: SpeechModuleResult, Sendable, Hashable, CustomStringConvertible {
        /// The most likely transcription: `alternatives[0]`.
        public var text: AttributedString { alternatives[0] }
        /// The transcriptions, most likely first; never empty. More than one only with the reporting option
        /// `.alternativeTranscriptions`.
        public let alternatives: [AttributedString]
        /// The span of the session's audio the result covers.
        public let range: CMTimeRange
        /// What the session reported before this time is final.
        public let resultsFinalizationTime: CMTime

        /// A result with these transcriptions.
        /// - Precondition: `alternatives` is not empty.
        public init(alternatives: [AttributedString], range: CMTimeRange, resultsFinalizationTime: CMTime) {
            precondition(!alternatives.isEmpty, "a transcription result needs at least one alternative")
            self.alternatives = alternatives
            self.range = range
            self.resultsFinalizationTime = resultsFinalizationTime
        }

        /// The words of `text` heard from `time` on (each run whose `audioTimeRange` starts at or after it), with
        /// their attributes; empty when the words carry no times (the attribute option `.audioTimeRange` is off).
        ///
        /// For a view that shows volatile text after the final text: when a final result arrives, the last
        /// volatile result's words before `final.range.end` are now final, and
        /// `volatile.text(startingAt: final.range.end)` is what stays on screen until the next volatile result.
        public func text(startingAt time: CMTime) -> AttributedString {
            var rest = AttributedString()
            for run in text.runs {
                guard let range = run.audioTimeRange else { return AttributedString() }
                if range.start >= time { rest.append(text[run.range]) }
            }
            return rest
        }

        /// `"final [0.5 s, 1.5 s): Hello world."`, with "volatile" instead of "final" for a volatile result.
        public var description: String {
            "\(isFinal ? "final" : "volatile") \(range): \(String(text.characters))"
        }
    }

    /// A named set of transcription, reporting and attribute options, as in Apple's Speech framework. Build your
    /// own with `init(transcriptionOptions:reportingOptions:attributeOptions:)`.
    ///
    /// | preset | volatileResults | fastResults | alternativeTranscriptions | audioTimeRange |
    /// |---|---|---|---|---|
    /// | `transcription` | – | – | – | – |
    /// | `transcriptionWithAlternatives` | – | – | ✓ | – |
    /// | `timeIndexedTranscriptionWithAlternatives` | – | – | ✓ | ✓ |
    /// | `progressiveTranscription` | ✓ | ✓ | – | – |
    /// | `timeIndexedProgressiveTranscription` | ✓ | ✓ | – | ✓ |
    ///
    /// No preset asks for `transcriptionConfidence` or `etiquetteReplacements`.
    public struct Preset: Sendable, Hashable {
        /// How the text is written.
        public var transcriptionOptions: Set<TranscriptionOption>
        /// What the session reports, and when.
        public var reportingOptions: Set<ReportingOption>
        /// The attributes each result's text carries.
        public var attributeOptions: Set<ResultAttributeOption>

        /// A preset of these options.
        public init(
            transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
            attributeOptions: Set<ResultAttributeOption>
        ) {
            self.transcriptionOptions = transcriptionOptions
            self.reportingOptions = reportingOptions
            self.attributeOptions = attributeOptions
        }

        /// Final results only, plain text.
        public static let transcription = Preset(transcriptionOptions: [], reportingOptions: [], attributeOptions: [])

        /// Final results with alternative transcriptions.
        public static let transcriptionWithAlternatives = Preset(
            transcriptionOptions: [], reportingOptions: [.alternativeTranscriptions], attributeOptions: [])

        /// Final results with alternative transcriptions and per-word audio time ranges.
        public static let timeIndexedTranscriptionWithAlternatives = Preset(
            transcriptionOptions: [], reportingOptions: [.alternativeTranscriptions],
            attributeOptions: [.audioTimeRange])

        /// Volatile results as the audio comes in, reported quickly, then final results.
        public static let progressiveTranscription = Preset(
            transcriptionOptions: [], reportingOptions: [.volatileResults, .fastResults], attributeOptions: [])

        /// Volatile results reported quickly, then final results, with per-word audio time ranges.
        public static let timeIndexedProgressiveTranscription = Preset(
            transcriptionOptions: [], reportingOptions: [.volatileResults, .fastResults],
            attributeOptions: [.audioTimeRange])

        /// `progressiveTranscription` under the name some published code uses (not in Apple's SDK interface, which
        /// this project mirrors; accepted so that such code compiles as printed).
        public static let progressiveLiveTranscription = progressiveTranscription

        /// `transcription` under the name Apple's own `SpeechAnalyzer` example uses (`.offlineTranscription`): final
        /// results only, for recorded audio.
        public static let offlineTranscription = transcription
    }

    /// How the text of a result is written.
    public enum TranscriptionOption: CaseIterable, Sendable, Hashable {
        /// Replaces expletives by asterisks of the same length (from a short built-in English list).
        case etiquetteReplacements
    }

    /// What the session reports, and when.
    public enum ReportingOption: CaseIterable, Sendable, Hashable {
        /// Also report volatile results: guesses for the latest audio that later results replace.
        case volatileResults
        /// Report up to a few alternative transcriptions per result, most likely first.
        case alternativeTranscriptions
        /// Report sooner, at some cost in accuracy. Accepted, with no effect here: every live transcription already
        /// updates at the engine's cadence (half a second of new audio) and shows volatile words at once.
        case fastResults
    }

    /// The attributes each result's text carries, per word.
    public enum ResultAttributeOption: CaseIterable, Sendable, Hashable {
        /// `audioTimeRange`: where in the audio the word was heard.
        case audioTimeRange
        /// `transcriptionConfidence`: how sure the engine is of the word, 0…1.
        case transcriptionConfidence
    }
}
