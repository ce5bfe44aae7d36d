import AuralVAD
import AuralWhisper

/// Voice activation for a live session: Silero VAD decides which audio reaches the engine.
///
/// Audio goes in as it arrives; out come steps for the streaming transcription: samples to skip (silence, which the
/// engine never sees but which still advances the session's clock), samples to transcribe, and the end of speech (a
/// finalize point: everything pending becomes final). Speech boundaries are `SpeechSegmenter`'s (silero-vad's
/// `get_speech_timestamps` rules, chunk by chunk, with the detection options' thresholds, durations and padding).
/// Once speech is confirmed, the audio from its padded start goes to the engine, and at least `preRollSeconds`
/// before its start, so that the first word is whole.
///
/// Not thread-safe: the inference thread owns it.
final class VoiceActivityGate {
    /// What the streaming transcription does next.
    enum Step: Equatable {
        /// Advance the session's clock by this many samples of silence.
        case skip(Int)
        /// Transcribe these samples.
        case audio([Float])
        /// Speech ended: commit everything pending.
        case speechEnded
    }

    /// A span of the session's audio, in samples, that the detector judged speech or silence. A speech span is
    /// reported twice: open when the speech is confirmed (up to that moment), then finished when it ended.
    struct Span: Equatable {
        var range: Range<Int>
        var isSpeech: Bool
        /// Whether the span will not grow: every silence span, and a speech span once the speech ended.
        var isFinished: Bool
    }

    private var detector: SileroVAD.Stream
    private var segmenter: SpeechSegmenter
    /// Samples kept before a padded speech start, beyond the padding.
    private let extraPreRoll: Int
    /// Samples held back in silence: a speech start is reported after the minimum speech, and lies in the past.
    private let holdInSilence: Int

    /// Samples not yet routed, from session sample `heldStart` on.
    private var held: [Float] = []
    private var heldStart = 0
    /// Whether speech was reported as started and not yet as ended: its audio goes to the engine.
    private(set) var isConfirmed = false
    /// Where the last reported span ended.
    private var reportedThrough = 0

    /// The pre-roll kept before speech, in seconds.
    static let preRollSeconds = 0.3

    init(vad: SileroVAD, options: SpeechDetector.DetectionOptions) {
        detector = vad.stream()
        segmenter = SpeechSegmenter(options: options.segmentOptions)
        let rate = Double(SileroVAD.sampleRate)
        extraPreRoll = max(0, Int((Self.preRollSeconds - options.speechPadding) * rate))
        // A start can be reported long after speech began when the probability dips on the way; keep 5 s at least.
        holdInSilence = max(5 * SileroVAD.sampleRate, Int((options.minimumSpeechDuration + options.speechPadding + Self.preRollSeconds) * rate) + 2 * SileroVAD.chunkSize)
    }

    /// Takes samples that follow the previous ones; returns the steps for the engine and the spans it judged: when
    /// speech is confirmed, the silence before it and the speech so far; when speech ended, the whole speech (with its
    /// padding).
    func process(_ samples: [Float]) -> (steps: [Step], spans: [Span]) {
        held += samples
        var steps: [Step] = []
        var spans: [Span] = []
        for probability in detector.append(samples) {
            let chunkEnd = segmenter.chunkCount * SileroVAD.chunkSize + SileroVAD.chunkSize
            for event in segmenter.process(probability) {
                switch event {
                case .started(let sample):
                    isConfirmed = true
                    skip(to: sample - extraPreRoll, into: &steps)
                    let from = max(reportedThrough, sample)
                    spans.append(Span(range: reportedThrough..<from, isSpeech: false, isFinished: true))
                    spans.append(Span(range: from..<max(from, chunkEnd), isSpeech: true, isFinished: false))
                    reportedThrough = from
                case .ended(let sample):
                    route(through: chunkEnd, into: &steps)
                    steps.append(.speechEnded)
                    let end = max(reportedThrough, sample)
                    spans.append(Span(range: reportedThrough..<end, isSpeech: true, isFinished: true))
                    reportedThrough = end
                    isConfirmed = false
                }
            }
            if isConfirmed { route(through: chunkEnd, into: &steps) }
        }
        if !isConfirmed { skip(to: heldStart + held.count - holdInSilence, into: &steps) }
        return (steps, spans.filter { !$0.range.isEmpty })
    }

    /// The steps that hand over whatever confirmed speech is held (a stop or a pause); anything else held is skipped.
    func drain() -> [Step] {
        var steps: [Step] = []
        let end = heldStart + held.count
        if isConfirmed { route(through: end, into: &steps) } else { skip(to: end, into: &steps) }
        return steps
    }

    /// For detection alone, at a stop or a pause: drops what is held and returns the confirmed speech up to the end
    /// of the audio received, as a finished span (none when no speech is going on).
    func drainSpans() -> [Span] {
        _ = drain()
        guard isConfirmed, heldStart > reportedThrough else { return [] }
        let span = Span(range: reportedThrough..<heldStart, isSpeech: true, isFinished: true)
        reportedThrough = heldStart
        return [span]
    }

    private func skip(to sample: Int, into steps: inout [Step]) {
        let count = min(held.count, max(0, sample - heldStart))
        guard count > 0 else { return }
        held.removeFirst(count)
        heldStart += count
        steps.append(.skip(count))
    }

    private func route(through sample: Int, into steps: inout [Step]) {
        let count = min(held.count, max(0, sample - heldStart))
        guard count > 0 else { return }
        steps.append(.audio(Array(held[..<count])))
        held.removeFirst(count)
        heldStart += count
    }
}

extension StreamingTranscription {
    /// Appends `samples` (through `gate`, when voice activation is on) and runs the updates that follow, in order:
    /// without a gate one update (a flush with `final`); with one, silence only moves the clock, each end of speech
    /// is a flush, and an update runs only while someone speaks or to flush. `spans` gets what the gate judged.
    func advance(
        with samples: [Float], gate: VoiceActivityGate?, final: Bool, spans: ([VoiceActivityGate.Span]) -> Void
    ) throws -> [Update] {
        guard let gate else {
            append(samples)
            return try update(final: final).map { [$0] } ?? []
        }
        let (steps, judged) = gate.process(samples)
        if !judged.isEmpty { spans(judged) }
        var updates: [Update] = []
        for step in steps + (final ? gate.drain() : []) {
            switch step {
            case .skip(let count):
                skip(count)
            case .audio(let audio):
                append(audio)
            case .speechEnded:
                if let update = try endSpeech() { updates.append(update) }
            }
        }
        if final || gate.isConfirmed, let update = try update(final: final) { updates.append(update) }
        return updates
    }
}
