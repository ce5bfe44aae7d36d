import AuralVAD
import AuralWhisper
import Foundation

/// Replays recorded audio through the live streaming policy, for benchmarks and tests: chunks of `cadence` seconds
/// are appended one by one and each is followed by an update, then a flush, all on the calling thread.
///
/// This is the computation-unaware replay of whisper_streaming's evaluation: the chunking does not depend on how
/// long decodes take, so the text is the same on every run and every machine of the same CPU kind. Each event still
/// records the decode's measured compute time, and its `emissionTime` adds it to the audio time, the estimate a live
/// session on this machine would show when decodes are shorter than the cadence.
package struct LiveReplay: Sendable {
    /// One update as a display would show it.
    package struct Event: Sendable {
        /// Seconds of audio received when the update's decode started.
        package var audioTime: Double
        /// `audioTime` plus the decode's compute time: when the update would reach the screen.
        package var emissionTime: Double
        /// Seconds the decode took.
        package var computeSeconds: Double
        /// Words that became final, with their times in the audio and their confidence (0…1).
        package var committed: [(text: String, start: Double, end: Double, confidence: Double)]
        /// The volatile words shown after all finals.
        package var volatile: [String]
        /// Whether this was the closing flush.
        package var isFlush: Bool
        /// Session seconds where the audio the next decode hears begins, after this update's trim.
        package var bufferStart: Double
        /// The text of the phrase results this update made final, as a `SpeechTranscriber` delivers them.
        package var phraseFinal: String
        /// The text of the volatile result this update delivered (empty when it withdrew the last), or nil when it
        /// delivered none.
        package var volatileResult: String?
    }

    /// The model the replay runs.
    package let model: WhisperModel
    /// Seconds of audio between updates.
    package let cadence: Double
    /// Seconds of audio before the first update, when it differs from `cadence`: moves every later update by the
    /// difference, as a real-time session's updates fall wherever the clock puts them against the recording.
    package let phase: Double?
    /// Up to this many seconds added to each interval between updates, drawn from a generator seeded with `seed`:
    /// a real-time session's updates start when a whole cadence of 20 ms capture fragments has arrived and the last
    /// decode has ended, so they drift against the recording. 0 keeps the intervals exact.
    package let jitter: Double
    /// The seed of `jitter`'s draws: the same seed gives the same replay.
    package let seed: UInt64
    /// Decoding options of each update (the language among them).
    package let options: DecodingOptions
    /// Seconds of audio kept for re-decoding before the buffer is trimmed at a committed word.
    package let maxBufferSeconds: Double
    /// Seconds of audio a trim keeps before the received end (0: cut at the committed word before the last).
    package let trimKeepSeconds: Double

    /// Seconds before the audio's end within which agreed words stay volatile.
    package let holdbackSeconds: Double
    /// When words become final.
    package let policy: StreamingPolicy
    /// How each decode encodes its audio.
    package let encoderWindow: LiveEncoderWindow
    /// Agreeing words that settle a substitution (`Configuration.substitutionContextWords`), nil for none.
    package let substitutionContextWords: Int?
    /// Voice activation as a session with `configureVoiceActivation` runs it (Silero VAD from the model cache), or nil.
    package let voiceActivation: SpeechDetector.DetectionOptions?

    package init(
        model: WhisperModel, cadence: Double = 0.5, phase: Double? = nil, jitter: Double = 0, seed: UInt64 = 0, maxBufferSeconds: Double = 15, trimKeepSeconds: Double = 6, holdbackSeconds: Double = 0,
        policy: StreamingPolicy = .localAgreement,
        encoderWindow: LiveEncoderWindow = .live,
        substitutionContextWords: Int? = LiveReplay.liveSubstitutionContextWords,
        voiceActivation: SpeechDetector.DetectionOptions? = nil,
        options: DecodingOptions = LiveReplay.liveOptions(language: "en")
    ) {
        self.substitutionContextWords = substitutionContextWords
        self.voiceActivation = voiceActivation
        self.encoderWindow = encoderWindow
        self.holdbackSeconds = holdbackSeconds
        self.policy = policy
        self.model = model
        self.cadence = cadence
        self.phase = phase
        self.jitter = jitter
        self.seed = seed
        self.maxBufferSeconds = maxBufferSeconds
        self.trimKeepSeconds = trimKeepSeconds
        self.options = options
    }

    /// The substitution context of the live configuration (`StreamingTranscription.Configuration`).
    package static let liveSubstitutionContextWords = StreamingTranscription.Configuration.live(language: "en").substitutionContextWords

    /// The decoding options of the live configuration that analyzers run (`StreamingTranscription.Configuration.live`),
    /// for `language`, with another beam width when given.
    package static func liveOptions(language: String, beamSize: Int? = nil) -> DecodingOptions {
        var options = StreamingTranscription.Configuration.live(language: language).options
        if let beamSize { options.beamSize = beamSize }
        return options
    }

    /// Replays 16 kHz mono `samples` and returns every update, the flush last.
    package func run(_ samples: [Float]) throws -> [Event] {
        let language = options.language ?? "en"
        let transcription = StreamingTranscription(
            decoder: WindowDecoder(model: model), language: language, configuration: .init(
                options: options, contextPrompt: nil, maxBufferSeconds: maxBufferSeconds, trimKeepSeconds: trimKeepSeconds, holdbackSeconds: holdbackSeconds,
                substitutionContextWords: substitutionContextWords, policy: policy, encoderWindow: encoderWindow))
        let chunk = max(1, Int(cadence * Double(WhisperTime.sampleRate)))
        var events: [Event] = []
        var position = 0
        var assembler = ResultAssembler(reportingOptions: [.volatileResults], attributeOptions: [], etiquette: false)
        func record(_ update: StreamingTranscription.Update) {
            let results = assembler.results(for: update)
            let volatile = results.last { !$0.isFinal }.map { String($0.text.characters) }
            events.append(Event(
                audioTime: update.audioTime, emissionTime: update.audioTime + update.computeSeconds,
                computeSeconds: update.computeSeconds,
                committed: update.committed.map { ($0.text, $0.start, $0.end, $0.confidence) }, volatile: update.volatile.map(\.text),
                isFlush: update.isFinal, bufferStart: transcription.bufferStartSeconds,
                phraseFinal: results.filter(\.isFinal).map { String($0.text.characters) }.joined(), volatileResult: volatile))
        }
        let gate = try voiceActivation.map { VoiceActivityGate(vad: try SileroVAD(contentsOf: ModelManager.shared.voiceActivityModelURL), options: $0) }
        if let phase, phase > 0 {
            position = min(samples.count, Int(phase * Double(WhisperTime.sampleRate)))
            try transcription.advance(with: Array(samples[..<position]), gate: gate, final: false, spans: { _ in }).forEach(record)
        }
        var generator = SplitMix64(seed: seed)
        while position < samples.count {
            let extra = jitter > 0 ? Int(Double(generator.next() >> 11) * 0x1p-53 * jitter * Double(WhisperTime.sampleRate)) : 0
            let end = min(samples.count, position + chunk + extra)
            let piece = Array(samples[position..<end])
            position = end
            try transcription.advance(with: piece, gate: gate, final: false, spans: { _ in }).forEach(record)
        }
        try transcription.advance(with: [], gate: gate, final: true, spans: { _ in }).forEach(record)
        return events
    }
}
