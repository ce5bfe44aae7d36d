/// `SpeechSegments.detect` for live audio: speech start and end events as each chunk's probability arrives.
///
/// ```swift
/// var stream = vad.stream()
/// var segmenter = SpeechSegmenter(options: SpeechSegmentOptions(minSilenceDurationMs: 600, speechPadMs: 300))
/// for probability in stream.append(buffer) {
///     for event in segmenter.process(probability) {
///         switch event {
///         case .started(let sample): …      // padded start, in samples from the stream's beginning
///         case .ended(let sample): …
///         }
///     }
/// }
/// ```
///
/// The events are the segments `detect` gives for the same probabilities whenever `minSilenceDurationMs` is at least
/// twice `speechPadMs` (then neighbouring segments always get their whole padding) and `maxSpeechDurationS` is nil
/// (this type ignores it). A start is reported once the speech has lasted `minSpeechDurationMs` (shorter speech is
/// never reported), an end once `minSilenceDurationMs` of silence has followed it; the sample numbers themselves are
/// the padded boundaries, so they lie in the past. With less silence than twice the padding, a start is kept at or
/// after the previous end instead of splitting the gap as `detect` does.
public struct SpeechSegmenter: Sendable {
    /// A boundary of speech, in samples at 16 kHz from the start of the audio.
    public enum Event: Sendable, Hashable {
        /// Speech begins here (padding included).
        case started(sample: Int)
        /// Speech ended here (padding included).
        case ended(sample: Int)
    }

    /// The options in use.
    public let options: SpeechSegmentOptions
    /// Whether speech has been reported as started and not yet as ended.
    public private(set) var isSpeechReported = false
    /// Chunks processed since the start or the last `reset()`.
    public private(set) var chunkCount = 0

    private var triggered = false
    private var start = 0, tempEnd = 0, previousEnd = 0
    private let threshold: Double, negThreshold: Double
    private let minSpeechSamples: Double, minSilenceSamples: Double, padSamples: Int

    /// A segmenter with these options (`maxSpeechDurationS` is not used).
    public init(options: SpeechSegmentOptions = SpeechSegmentOptions()) {
        self.options = options
        threshold = options.threshold
        negThreshold = options.negThreshold ?? max(options.threshold - 0.15, 0.01)
        let rate = Double(SileroVAD.sampleRate)
        minSpeechSamples = rate * Double(options.minSpeechDurationMs) / 1000
        minSilenceSamples = rate * Double(options.minSilenceDurationMs) / 1000
        padSamples = SileroVAD.sampleRate * options.speechPadMs / 1000
    }

    /// Takes the next chunk's speech probability and returns the boundaries it settles (none, one or two).
    public mutating func process(_ probability: Float) -> [Event] {
        let p = Double(probability)
        let sample = SileroVAD.chunkSize * chunkCount
        chunkCount += 1
        var events: [Event] = []
        if p >= threshold, tempEnd != 0 { tempEnd = 0 }
        if p >= threshold, !triggered {
            triggered = true
            start = sample
            return events
        }
        if p < negThreshold, triggered {
            if tempEnd == 0 { tempEnd = sample }
            if Double(sample - tempEnd) >= minSilenceSamples {
                if Double(tempEnd - start) > minSpeechSamples {
                    reportStart(&events)
                    previousEnd = tempEnd + padSamples
                    events.append(.ended(sample: previousEnd))
                }
                isSpeechReported = false
                triggered = false
                tempEnd = 0
            }
            return events
        }
        if triggered, tempEnd == 0, Double(sample - start) > minSpeechSamples { reportStart(&events) }
        return events
    }

    /// Ends the audio after `sampleCount` samples: open speech long enough to keep ends there. Then starts over.
    public mutating func finish(sampleCount: Int) -> [Event] {
        var events: [Event] = []
        if triggered, Double(sampleCount - start) > minSpeechSamples {
            reportStart(&events)
            events.append(.ended(sample: sampleCount))
        }
        reset()
        return events
    }

    /// Forgets everything: no speech, chunk count 0. Safe to call at any time.
    public mutating func reset() {
        self = SpeechSegmenter(options: options)
    }

    private mutating func reportStart(_ events: inout [Event]) {
        guard !isSpeechReported else { return }
        isSpeechReported = true
        events.append(.started(sample: max(previousEnd, start - padSamples)))
    }
}
