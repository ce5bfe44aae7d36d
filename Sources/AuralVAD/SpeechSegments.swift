/// How `SpeechSegments.detect` turns speech probabilities into speech segments. Names and defaults follow silero-vad
/// 6.2.3's `get_speech_timestamps` (camel-cased, units kept in the names).
public struct SpeechSegmentOptions: Sendable, Codable, Hashable {
    /// Chunks with a probability at or above this are speech. Default: 0.5.
    public var threshold: Double
    /// Below this, speech ends (between the two thresholds it continues); nil means `max(threshold − 0.15, 0.01)`.
    /// Default: nil.
    public var negThreshold: Double?
    /// Segments this short or shorter (milliseconds) are dropped. Default: 250.
    public var minSpeechDurationMs: Int
    /// Longer segments (seconds) are split, at the longest silence over `minSilenceAtMaxSpeechMs` inside them if any,
    /// else where the limit is reached; nil means no limit. Default: nil.
    public var maxSpeechDurationS: Double?
    /// Silence (milliseconds) that must follow speech before a segment ends. Default: 100.
    public var minSilenceDurationMs: Int
    /// Milliseconds added at each end of a segment (less when two segments are closer than twice this). Default: 30.
    public var speechPadMs: Int
    /// Silences longer than this (milliseconds) are candidates for splitting an over-long segment. Default: 98.
    public var minSilenceAtMaxSpeechMs: Int
    /// Split an over-long segment at its longest candidate silence (silero-vad 6.x); false splits at the last silence
    /// over `minSilenceAtMaxSpeechMs`, as before 6.0. Default: true.
    public var useMaxPossibleSilenceAtMaxSpeech: Bool

    /// Options with silero-vad's defaults; pass only what differs.
    public init(
        threshold: Double = 0.5, negThreshold: Double? = nil, minSpeechDurationMs: Int = 250,
        maxSpeechDurationS: Double? = nil, minSilenceDurationMs: Int = 100, speechPadMs: Int = 30,
        minSilenceAtMaxSpeechMs: Int = 98, useMaxPossibleSilenceAtMaxSpeech: Bool = true
    ) {
        self.threshold = threshold
        self.negThreshold = negThreshold
        self.minSpeechDurationMs = minSpeechDurationMs
        self.maxSpeechDurationS = maxSpeechDurationS
        self.minSilenceDurationMs = minSilenceDurationMs
        self.speechPadMs = speechPadMs
        self.minSilenceAtMaxSpeechMs = minSilenceAtMaxSpeechMs
        self.useMaxPossibleSilenceAtMaxSpeech = useMaxPossibleSilenceAtMaxSpeech
    }

    /// faster-whisper 1.2.1's `VadOptions()`, which its `vad_filter` uses: no minimum speech, 2 s of silence to end a
    /// segment, 400 ms of padding.
    public static let fasterWhisper = SpeechSegmentOptions(minSpeechDurationMs: 0, minSilenceDurationMs: 2000, speechPadMs: 400)
}

/// Speech segments from per-chunk speech probabilities: silero-vad 6.2.3's `get_speech_timestamps` (its
/// `get_speech_timestamps_from_probs`), rule for rule, on 16 kHz audio in 512-sample chunks.
public enum SpeechSegments {
    /// The speech in audio of `sampleCount` samples whose chunk `i` (samples `512·i ..< 512·(i+1)`) has speech
    /// probability `probabilities[i]`, as ranges of sample indices in order, padded and clipped to the audio.
    public static func detect(
        probabilities: [Float], sampleCount: Int, options: SpeechSegmentOptions = SpeechSegmentOptions()
    ) -> [Range<Int>] {
        let rate = Double(SileroVAD.sampleRate)
        let window = SileroVAD.chunkSize
        let minSpeechSamples = rate * Double(options.minSpeechDurationMs) / 1000
        let speechPadSamples = rate * Double(options.speechPadMs) / 1000
        let maxSpeechSamples = options.maxSpeechDurationS.map { rate * $0 - Double(window) - 2 * speechPadSamples } ?? .infinity
        let minSilenceSamples = rate * Double(options.minSilenceDurationMs) / 1000
        let minSilenceSamplesAtMaxSpeech = rate * Double(options.minSilenceAtMaxSpeechMs) / 1000
        let threshold = options.threshold
        let negThreshold = options.negThreshold ?? max(threshold - 0.15, 0.01)

        var triggered = false
        var speeches: [(start: Int, end: Int)] = []
        var currentStart: Int?  // the reference's current_speech dict: empty, or holding a start
        var tempEnd = 0, prevEnd = 0, nextStart = 0
        var possibleEnds: [(end: Int, duration: Int)] = []

        for (i, probability) in probabilities.enumerated() {
            let speechProbability = Double(probability)
            let sample = window * i
            if speechProbability >= threshold, tempEnd != 0 {
                let silence = sample - tempEnd
                if Double(silence) > minSilenceSamplesAtMaxSpeech { possibleEnds.append((tempEnd, silence)) }
                tempEnd = 0
                if nextStart < prevEnd { nextStart = sample }
            }
            if speechProbability >= threshold, !triggered {
                triggered = true
                currentStart = sample
                continue
            }
            if triggered, let start = currentStart, Double(sample - start) > maxSpeechSamples {
                if options.useMaxPossibleSilenceAtMaxSpeech, var longest = possibleEnds.first {
                    for candidate in possibleEnds.dropFirst() where candidate.duration > longest.duration { longest = candidate }
                    prevEnd = longest.end
                    speeches.append((start, prevEnd))
                    currentStart = nil
                    nextStart = prevEnd + longest.duration
                    if nextStart < prevEnd + sample {
                        currentStart = nextStart
                    } else {
                        triggered = false
                    }
                    prevEnd = 0; nextStart = 0; tempEnd = 0
                    possibleEnds = []
                } else if prevEnd != 0 {
                    speeches.append((start, prevEnd))
                    currentStart = nil
                    if nextStart < prevEnd {
                        triggered = false
                    } else {
                        currentStart = nextStart
                    }
                    prevEnd = 0; nextStart = 0; tempEnd = 0
                    possibleEnds = []
                } else {
                    speeches.append((start, sample))
                    currentStart = nil
                    prevEnd = 0; nextStart = 0; tempEnd = 0
                    triggered = false
                    possibleEnds = []
                    continue
                }
            }
            if speechProbability < negThreshold, triggered {
                if tempEnd == 0 { tempEnd = sample }
                let silence = sample - tempEnd
                if !options.useMaxPossibleSilenceAtMaxSpeech, Double(silence) > minSilenceSamplesAtMaxSpeech { prevEnd = tempEnd }
                if Double(silence) < minSilenceSamples { continue }
                if let start = currentStart, Double(tempEnd - start) > minSpeechSamples { speeches.append((start, tempEnd)) }
                currentStart = nil
                prevEnd = 0; nextStart = 0; tempEnd = 0
                triggered = false
                possibleEnds = []
                continue
            }
        }
        if let start = currentStart, Double(sampleCount - start) > minSpeechSamples {
            speeches.append((start, sampleCount))
        }

        // Padding: the whole pad where the gap allows, else half the gap to each side.
        for i in speeches.indices {
            if i == 0 { speeches[i].start = Int(max(0, Double(speeches[i].start) - speechPadSamples)) }
            if i != speeches.count - 1 {
                let silence = speeches[i + 1].start - speeches[i].end
                if Double(silence) < 2 * speechPadSamples {
                    let half = floorDivide(silence, 2)
                    speeches[i].end += half
                    speeches[i + 1].start = max(0, speeches[i + 1].start - half)
                } else {
                    speeches[i].end = Int(min(Double(sampleCount), Double(speeches[i].end) + speechPadSamples))
                    speeches[i + 1].start = Int(max(0, Double(speeches[i + 1].start) - speechPadSamples))
                }
            } else {
                speeches[i].end = Int(min(Double(sampleCount), Double(speeches[i].end) + speechPadSamples))
            }
        }
        return speeches.map { $0.start..<max($0.start, $0.end) }
    }

    /// Python's `//` on integers (rounds toward −∞).
    private static func floorDivide(_ a: Int, _ b: Int) -> Int {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }
}
