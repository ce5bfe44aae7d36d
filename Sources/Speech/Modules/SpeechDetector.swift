import CoreMedia
import AVFoundation
import AuralVAD
import Foundation
import Synchronization

/// Voice activity detection as a module, like Apple's `SpeechDetector`: in an analyzer with a transcriber, silence
/// is not transcribed (each end of speech makes the transcriber's pending words final), and with `reportResults`
/// its `results` say where it heard speech.
///
/// The detector is Silero VAD, run in Swift (`AuralVAD`). Its results, when reported, cover the input's timeline
/// without gaps: a span of silence, then the speech that follows, each final once settled.
public final class SpeechDetector: SpeechModule, Sendable {
    /// How eager the detector is to call audio silence.
    public let detectionOptions: DetectionOptions
    /// Whether the detector publishes its results in `results`.
    public let reportResults: Bool
    /// The detector's results; empty unless `reportResults` is true. Ends when the analysis finishes.
    public let results: AsyncThrowingStream<Result, any Error>
    let resultsContinuation: AsyncThrowingStream<Result, any Error>.Continuation
    /// Told whether speech is going on each time the detector settles a span (`AuralKit`'s `isSpeechDetected`).
    private let activityObserver = Mutex<(@Sendable (Bool) -> Void)?>(nil)

    /// A detector with these options.
    public init(detectionOptions: DetectionOptions, reportResults: Bool) {
        self.detectionOptions = detectionOptions
        self.reportResults = reportResults
        (results, resultsContinuation) = AsyncThrowingStream<Result, any Error>.makeStream()
    }

    /// Calls `observer` from the analysis thread with whether speech is going on, each time that is settled.
    package func observeActivity(_ observer: @escaping @Sendable (Bool) -> Void) {
        activityObserver.withLock { $0 = observer }
    }

    /// The analysis settled `spans`.
    func noteSpans(_ spans: [VoiceActivityGate.Span]) {
        guard let last = spans.last, let observer = activityObserver.withLock({ $0 }) else { return }
        observer(last.isSpeech && !last.isFinished)
    }

    /// 16 kHz mono float32, the rate Silero VAD runs at; the analyzer converts any other PCM format to it.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async { [AnalyzerAudio.format] }
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
    ///
    /// The detector is Silero VAD (one speech probability per 32 ms), and a sensitivity level sets how its
    /// probabilities become speech:
    ///
    /// | level   | threshold | min. speech | min. silence | padding |
    /// |---------|-----------|-------------|--------------|---------|
    /// | .low    | 0.35      | 100 ms      | 1000 ms      | 400 ms  |
    /// | .medium | 0.5       | 150 ms      | 600 ms       | 300 ms  |
    /// | .high   | 0.65      | 400 ms      | 300 ms       | 150 ms  |
    ///
    /// Speech starts at a chunk whose probability reaches the threshold and ends after the minimum silence below
    /// `threshold − 0.15`; speech shorter than the minimum is ignored; the padding is kept before and after (it is
    /// also the pre-roll that keeps the first word whole). `.medium` keeps silero-vad's threshold; its minimum speech
    /// is 150 ms where silero-vad's is 250 ms (faster-whisper's is 0), so that a short answer is heard: the "Yes." of
    /// `endgame_nagg_nell.wav` scores above the threshold for 224 ms.
    /// Every level's minimum silence is at least twice its padding, so AuralVAD's `SpeechSegmenter` reports, chunk by
    /// chunk, the segments `SpeechSegments.detect` finds in the whole recording.
    public struct DetectionOptions: Sendable, Hashable {
        /// How readily audio is taken for silence.
        public let sensitivityLevel: SensitivityLevel

        /// Options of this sensitivity.
        public init(sensitivityLevel: SensitivityLevel) {
            self.sensitivityLevel = sensitivityLevel
        }

        /// The speech probability (0…1) at which speech starts; it ends below this minus 0.15.
        public var threshold: Double {
            switch sensitivityLevel {
            case .low: 0.35
            case .medium: 0.5
            case .high: 0.65
            }
        }

        /// Speech shorter than this, in seconds, is ignored.
        public var minimumSpeechDuration: Double {
            switch sensitivityLevel {
            case .low: 0.1
            case .medium: 0.15
            case .high: 0.4
            }
        }

        /// Silence that ends speech, in seconds.
        public var minimumSilenceDuration: Double {
            switch sensitivityLevel {
            case .low: 1.0
            case .medium: 0.6
            case .high: 0.3
            }
        }

        /// Audio kept before and after speech, in seconds.
        public var speechPadding: Double {
            switch sensitivityLevel {
            case .low: 0.4
            case .medium: 0.3
            case .high: 0.15
            }
        }

        /// The same settings for `SpeechSegments.detect` (silero-vad's names, in milliseconds).
        package var segmentOptions: SpeechSegmentOptions {
            SpeechSegmentOptions(
                threshold: threshold, minSpeechDurationMs: Int((minimumSpeechDuration * 1000).rounded()),
                minSilenceDurationMs: Int((minimumSilenceDuration * 1000).rounded()),
                speechPadMs: Int((speechPadding * 1000).rounded()))
        }
    }

    /// Whether the detector heard speech in a span of audio.
    public struct Result: SpeechModuleResult, Sendable, Hashable, CustomStringConvertible {
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

        /// `"speech [0.5 s, 1.5 s)"`, or "silence".
        public var description: String { "\(speechDetected ? "speech" : "silence") \(range)" }
    }
}
