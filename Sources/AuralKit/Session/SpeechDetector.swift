import Foundation

/// Voice activity detection for a session, like Apple's `SpeechDetector`: with it, the session does not decode
/// silence, and it can report where it heard speech.
///
/// Pass its options to `SpeechSession.configureVoiceActivation(detectionOptions:reportResults:)`. This type holds
/// the configuration and the result type; the detection itself runs inside the session.
public final class SpeechDetector: Sendable {
    /// How eager the detector is to call audio silence.
    public let detectionOptions: DetectionOptions
    /// Whether the session reports `Result`s through `speechDetectorResultsStream`.
    public let reportResults: Bool

    /// A detector with these options.
    public init(detectionOptions: DetectionOptions, reportResults: Bool) {
        self.detectionOptions = detectionOptions
        self.reportResults = reportResults
    }

    /// A detector of `.medium` sensitivity that does not report results.
    public convenience init() {
        self.init(detectionOptions: DetectionOptions(sensitivityLevel: .medium), reportResults: false)
    }

    /// How readily audio is taken for silence.
    public enum SensitivityLevel: Int, CaseIterable, Sendable, Hashable {
        /// Forgiving: keeps quiet or distant speech, skips only clear silence.
        case low
        /// Balanced; the default.
        case medium
        /// Aggressive: skips more, and may cut soft speech.
        case high
    }

    /// The detector's settings.
    public struct DetectionOptions: Sendable, Hashable {
        /// How readily audio is taken for silence.
        public let sensitivityLevel: SensitivityLevel

        /// Options of this sensitivity.
        public init(sensitivityLevel: SensitivityLevel) {
            self.sensitivityLevel = sensitivityLevel
        }
    }

    /// Whether the detector heard speech in a span of audio.
    public struct Result: SpeechModuleResult, Sendable, Hashable {
        /// The span of the session's audio the result covers.
        public let range: CMTimeRange
        /// The detector will not change what it reported before this time.
        public let resultsFinalizationTime: CMTime
        /// Whether the span holds speech.
        public let speechDetected: Bool

        /// A detection result.
        public init(range: CMTimeRange, resultsFinalizationTime: CMTime, speechDetected: Bool) {
            self.range = range
            self.resultsFinalizationTime = resultsFinalizationTime
            self.speechDetected = speechDetected
        }
    }
}
