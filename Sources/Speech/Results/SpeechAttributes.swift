import CoreMedia
import Foundation

extension AttributeScopes {
    /// The attributes a transcription's `AttributedString` carries per word, as in Apple's Speech framework:
    /// where in the audio the word was heard, and how sure the engine is of it.
    ///
    /// Read them on runs through dynamic member lookup:
    /// ```swift
    /// for run in result.text.runs {
    ///     if let range = run.audioTimeRange { print(range.start.seconds, range.end.seconds) }
    ///     if let confidence = run.transcriptionConfidence { print(confidence) }
    /// }
    /// ```
    /// A result carries an attribute only if the session's `attributeOptions` ask for it. Both keys are
    /// `CodableAttributedStringKey`s with `Codable` values; note that swift-foundation on Linux (Swift 6.3) does not
    /// make `AttributedString` itself `Codable`, so store a transcript's runs, not the string.
    public struct SpeechAttributes: AttributeScope {
        /// The word's confidence, 0…1.
        public let transcriptionConfidence: ConfidenceAttribute
        /// The word's span of the session's audio.
        public let audioTimeRange: TimeRangeAttribute

        /// A confidence level (0…1) of the text it is attached to: the probability the engine gave the word's
        /// tokens (the exponential of their mean log probability).
        public enum ConfidenceAttribute: CodableAttributedStringKey {
            /// The value: a probability between 0 and 1.
            public typealias Value = Double
            /// The key's name in encoded attributed strings.
            public static let name = "AuralKit.transcriptionConfidence"
        }

        /// The text of the word a run was made for (what `run.text` returns). Every word of a result carries it, so
        /// AuralKit's README code `run.text` compiles and prints the word.
        public enum RunTextAttribute: CodableAttributedStringKey {
            /// The value: the word as transcribed, with its leading space.
            public typealias Value = String
            /// The key's name in encoded attributed strings.
            public static let name = "AuralKit.runText"
        }

        /// The word each run was made for (see `RunTextAttribute`).
        public let runText: RunTextAttribute

        /// The span of the session's audio in which the text it is attached to was heard (seconds from the start of
        /// the session's audio, at the session's 16 kHz timescale).
        /// - Tip: `AttributedString.rangeOfAudioTimeRangeAttributes(intersecting:)` finds the text heard in a range.
        public enum TimeRangeAttribute: CodableAttributedStringKey {
            /// The value: a time range of the session's audio.
            public typealias Value = CMTimeRange
            /// The key's name in encoded attributed strings.
            public static let name = "AuralKit.audioTimeRange"
        }
    }
}

extension AttributeDynamicLookup {
    /// Makes `run.audioTimeRange` and `run.transcriptionConfidence` readable on runs and attributed strings.
    public subscript<T: AttributedStringKey>(dynamicMember keyPath: KeyPath<AttributeScopes.SpeechAttributes, T>) -> T {
        self[T.self]
    }
}

extension AttributedString.Runs.Run {
    /// The word this run of a transcription holds, as AuralKit's README reads it (`run.text`); empty for runs of
    /// text that did not come from a transcription.
    public var text: String { self[AttributeScopes.SpeechAttributes.RunTextAttribute.self] ?? "" }
}

extension AttributedString {
    /// The characters whose `audioTimeRange` attributes overlap `timeRange`: from the first such run to the last
    /// one, including any runs in between (spaces, runs without a time range). `nil` when no run overlaps.
    ///
    /// Two ranges overlap when they share an instant (`start < other.end` and `other.start < end`); a range that
    /// lasts no time overlaps a range that contains its start. Use it to replace the volatile part of a running
    /// transcript, as with Apple's Speech framework.
    public func rangeOfAudioTimeRangeAttributes(intersecting timeRange: CMTimeRange) -> Range<AttributedString.Index>? {
        var lower: AttributedString.Index?
        var upper: AttributedString.Index?
        for (range, runRange) in runs[\.audioTimeRange] {
            guard let range, range.overlaps(timeRange) else { continue }
            if lower == nil { lower = runRange.lowerBound }
            upper = runRange.upperBound
        }
        guard let lower, let upper else { return nil }
        return lower..<upper
    }
}

extension CMTimeRange {
    /// Whether the two ranges share an instant; an empty range shares its start with a range that contains it.
    func overlaps(_ other: CMTimeRange) -> Bool {
        guard isValid, other.isValid else { return false }
        if isEmpty { return other.containsTime(start) || (other.isEmpty && other.start == start) }
        if other.isEmpty { return containsTime(other.start) }
        return start < other.end && other.start < end
    }
}
