import AuralVAD
import AuralWhisper

/// Voice activation for a live session: Silero VAD decides which audio reaches the engine.
///
/// Audio goes in as it arrives; out come steps for the streaming transcription: samples to skip (silence, which the
/// engine never sees but which still advances the session's clock), samples to transcribe, and the end of speech (a
/// finalize point: everything pending becomes final). Speech starts at the first 32 ms chunk whose probability
/// reaches the threshold and is confirmed once it has lasted the minimum speech duration; then the audio from the
/// speech padding before its start, and at least `preRollSeconds` of it, goes to the engine so the first word is
/// whole. It ends after the minimum silence below `threshold − 0.15`. These are silero-vad's `get_speech_timestamps`
/// rules (without its splitting of over-long speech, which the live buffer's own trimming makes unnecessary), so the
/// boundaries it reports are those of `SpeechSegments.detect` on the same audio.
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
    private let threshold: Float
    private let negativeThreshold: Float
    private let minimumSpeech: Int
    private let minimumSilence: Int
    private let padding: Int
    private let preRoll: Int

    /// Samples not yet routed, from session sample `heldStart` on.
    private var held: [Float] = []
    private var heldStart = 0
    /// Samples received (the session's clock).
    private var received = 0
    /// Where the current speech (confirmed or not) started, at a chunk's start; nil in silence.
    private var speechStart: Int?
    /// Whether the current speech lasted the minimum and its audio goes to the engine.
    private(set) var isConfirmed = false
    /// Where the silence inside the current speech began (silero-vad's `temp_end`).
    private var silenceStart: Int?
    /// Where the last reported span ended.
    private var reportedThrough = 0

    /// The pre-roll kept before speech, in seconds.
    static let preRollSeconds = 0.3

    init(vad: SileroVAD, options: SpeechDetector.DetectionOptions) {
        detector = vad.stream()
        let rate = Double(SileroVAD.sampleRate)
        threshold = Float(options.threshold)
        negativeThreshold = Float(max(options.threshold - 0.15, 0.01))
        minimumSpeech = Int(options.minimumSpeechDuration * rate)
        minimumSilence = Int(options.minimumSilenceDuration * rate)
        padding = Int(options.speechPadding * rate)
        preRoll = max(padding, Int(Self.preRollSeconds * rate))
    }

    /// Takes samples that follow the previous ones; returns the steps for the engine and the spans it judged: when
    /// speech is confirmed, the silence before it and the speech so far; when speech ended, the whole speech (with its
    /// padding).
    func process(_ samples: [Float]) -> (steps: [Step], spans: [Span]) {
        held += samples
        received += samples.count
        let probabilities = detector.append(samples)
        var steps: [Step] = []
        var spans: [Span] = []
        let firstChunk = detector.chunkCount - probabilities.count
        for (offset, probability) in probabilities.enumerated() {
            let start = (firstChunk + offset) * SileroVAD.chunkSize
            let end = start + SileroVAD.chunkSize
            if let began = speechStart {
                if probability >= threshold { silenceStart = nil }
                if probability < negativeThreshold {
                    let silence = silenceStart ?? start
                    silenceStart = silence
                    if start - silence >= minimumSilence {
                        if isConfirmed {
                            route(through: end, into: &steps)
                            steps.append(.speechEnded)
                            let speechEnd = max(reportedThrough, min(silence + padding, end))
                            spans.append(Span(range: reportedThrough..<speechEnd, isSpeech: true, isFinished: true))
                            reportedThrough = speechEnd
                        }
                        speechStart = nil
                        silenceStart = nil
                        isConfirmed = false
                        continue
                    }
                }
                if !isConfirmed && end - began >= minimumSpeech {
                    isConfirmed = true
                    skip(to: began - preRoll, into: &steps)
                    let speechFrom = max(reportedThrough, began - padding)
                    spans.append(Span(range: reportedThrough..<speechFrom, isSpeech: false, isFinished: true))
                    spans.append(Span(range: speechFrom..<end, isSpeech: true, isFinished: false))
                    reportedThrough = speechFrom
                }
                if isConfirmed { route(through: end, into: &steps) }
            } else if probability >= threshold {
                speechStart = start
                silenceStart = nil
            }
        }
        if !isConfirmed {
            // In silence, keep only what a speech start could still need: the pre-roll before the earliest start.
            let keepFrom = max(heldStart, min(speechStart ?? Int.max, detector.chunkCount * SileroVAD.chunkSize) - preRoll)
            skip(to: keepFrom, into: &steps)
        }
        return (steps, spans.filter { !$0.range.isEmpty })
    }

    /// The steps that hand over whatever speech is held (a stop or a pause): speech not yet confirmed goes to the
    /// engine too, since it may be a short last word; held silence is skipped.
    func drain() -> [Step] {
        var steps: [Step] = []
        if let began = speechStart {
            if !isConfirmed { skip(to: began - preRoll, into: &steps) }
            route(through: received, into: &steps)
        } else {
            skip(to: received, into: &steps)
        }
        return steps
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
                if let update = try update(final: true) { updates.append(update) }
            }
        }
        if final || gate.isConfirmed, let update = try update(final: final) { updates.append(update) }
        return updates
    }
}
