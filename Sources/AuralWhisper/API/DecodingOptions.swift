import AuralVAD

/// What to do with the speech: write it down in its language, or translate it to English.
public enum WhisperTask: String, Sendable, Codable, CaseIterable {
    /// Text in the spoken language.
    case transcribe
    /// English text, whatever the spoken language (multilingual models only).
    case translate
}

/// Per-call decoding options. Names and defaults follow faster-whisper's `transcribe()` (and openai/whisper's),
/// and live here only: the CLI and the session layer take them from this initializer.
public struct DecodingOptions: Sendable, Codable, Equatable {
    /// Transcribe or translate. Default: transcribe.
    public var task: WhisperTask
    /// Spoken language code ("en", "de", …); nil detects it from the first 30 s (English-only models use "en").
    public var language: String?
    /// Temperatures tried in turn when a decode fails the thresholds. Default: 0, 0.2, 0.4, 0.6, 0.8, 1.0.
    public var temperatures: [Double]
    /// Beams at temperature 0; 1 means greedy. Default: 5.
    public var beamSize: Int
    /// Samples drawn at a temperature above 0, the best kept. Default: 5.
    public var bestOf: Int
    /// Beam search patience: finished candidates needed = round(beamSize × patience). Default: 1.
    public var patience: Double
    /// Exponent of the length normalisation of scores (score / length^lengthPenalty). Default: 1.
    public var lengthPenalty: Double
    /// Above this gzip compression ratio a decode counts as repetitive and falls back. Default: 2.4; nil disables.
    public var compressionRatioThreshold: Double?
    /// Below this mean token log probability a decode falls back. Default: −1; nil disables.
    public var logProbThreshold: Double?
    /// Above this no-speech probability, with a low log probability, a window counts as silent. Default: 0.6.
    public var noSpeechThreshold: Double?
    /// Give the previous window's text as the prompt of the next. Default: true.
    public var conditionOnPreviousText: Bool
    /// Stop conditioning on previous text after a decode at a temperature above this. Default: 0.5.
    public var promptResetOnTemperature: Double
    /// Text to condition the first window on (names, spelling, style). Default: nil.
    public var initialPrompt: String?
    /// Text the first window's transcript must start with. Default: nil.
    public var prefix: String?
    /// Forbid a blank or end-of-text first token. Default: true.
    public var suppressBlank: Bool
    /// Token ids never produced; -1 stands for the model's list of non-speech symbols. Default: [-1].
    public var suppressTokens: [Int]
    /// Decode text only, one segment per window. Default: false.
    public var withoutTimestamps: Bool
    /// Latest first timestamp allowed, in seconds. Default: 1.
    public var maxInitialTimestamp: Double
    /// Align every word to the audio (cross-attention and DTW). Default: false.
    public var wordTimestamps: Bool
    /// Punctuation merged into the following word when aligning words.
    public var prependPunctuations: String
    /// Punctuation merged into the preceding word when aligning words.
    public var appendPunctuations: String
    /// At most this many tokens per window; nil means the model's limit (224). Default: nil.
    public var maxNewTokens: Int?
    /// Windows whose loudest 100 ms stays below this RMS level (full scale 1) are skipped as silence without
    /// decoding, so silence and faint noise give no text (Whisper alone tends to write "Thank you." or "You" there).
    /// Default: 0.003 (−50 dBFS); nil decodes every window as faster-whisper does.
    public var silenceThreshold: Double?
    /// Seed of the sampler used at temperatures above 0, for repeatable runs. Default: 0.
    public var seed: UInt64
    /// Transcribe only the speech Silero VAD finds, with these segment options, and give times on the original
    /// audio (faster-whisper's `vad_filter=True` with `vad_parameters`; `.fasterWhisper` are its defaults). Needs a
    /// `Transcriber` made with a `SileroVAD`. Default: nil (every window is decoded).
    public var vadFilter: SpeechSegmentOptions?

    /// Options with the reference defaults; pass only what differs.
    public init(
        task: WhisperTask = .transcribe,
        language: String? = nil,
        temperatures: [Double] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
        beamSize: Int = 5,
        bestOf: Int = 5,
        patience: Double = 1,
        lengthPenalty: Double = 1,
        compressionRatioThreshold: Double? = 2.4,
        logProbThreshold: Double? = -1.0,
        noSpeechThreshold: Double? = 0.6,
        conditionOnPreviousText: Bool = true,
        promptResetOnTemperature: Double = 0.5,
        initialPrompt: String? = nil,
        prefix: String? = nil,
        suppressBlank: Bool = true,
        suppressTokens: [Int] = [-1],
        withoutTimestamps: Bool = false,
        maxInitialTimestamp: Double = 1.0,
        wordTimestamps: Bool = false,
        prependPunctuations: String = "\"'“¿([{-",
        appendPunctuations: String = "\"'.。,，!！?？:：”)]}、",
        maxNewTokens: Int? = nil,
        silenceThreshold: Double? = 0.003,
        seed: UInt64 = 0,
        vadFilter: SpeechSegmentOptions? = nil
    ) {
        self.task = task
        self.language = language
        self.temperatures = temperatures
        self.beamSize = beamSize
        self.bestOf = bestOf
        self.patience = patience
        self.lengthPenalty = lengthPenalty
        self.compressionRatioThreshold = compressionRatioThreshold
        self.logProbThreshold = logProbThreshold
        self.noSpeechThreshold = noSpeechThreshold
        self.conditionOnPreviousText = conditionOnPreviousText
        self.promptResetOnTemperature = promptResetOnTemperature
        self.initialPrompt = initialPrompt
        self.prefix = prefix
        self.suppressBlank = suppressBlank
        self.suppressTokens = suppressTokens
        self.withoutTimestamps = withoutTimestamps
        self.maxInitialTimestamp = maxInitialTimestamp
        self.wordTimestamps = wordTimestamps
        self.prependPunctuations = prependPunctuations
        self.appendPunctuations = appendPunctuations
        self.maxNewTokens = maxNewTokens
        self.silenceThreshold = silenceThreshold
        self.seed = seed
        self.vadFilter = vadFilter
    }

    /// Checks ranges; throws `TranscriptionError.invalidOption` naming the first bad field.
    public func validate() throws {
        if beamSize < 1 { throw TranscriptionError.invalidOption(name: "beamSize", reason: "must be at least 1, got \(beamSize)") }
        if bestOf < 1 { throw TranscriptionError.invalidOption(name: "bestOf", reason: "must be at least 1, got \(bestOf)") }
        if patience <= 0 { throw TranscriptionError.invalidOption(name: "patience", reason: "must be above 0, got \(patience)") }
        if temperatures.isEmpty || temperatures.contains(where: { $0 < 0 || !$0.isFinite }) {
            throw TranscriptionError.invalidOption(name: "temperatures", reason: "need at least one finite value ≥ 0")
        }
        if let vadFilter {
            if !(0...1).contains(vadFilter.threshold) || vadFilter.negThreshold.map({ !(0...1).contains($0) }) == true {
                throw TranscriptionError.invalidOption(name: "vadFilter", reason: "thresholds must be within 0...1")
            }
            if vadFilter.minSpeechDurationMs < 0 || vadFilter.minSilenceDurationMs < 0 || vadFilter.speechPadMs < 0
                || vadFilter.maxSpeechDurationS.map({ !($0 > 0) }) == true {
                throw TranscriptionError.invalidOption(name: "vadFilter", reason: "durations must not be negative (the maximum above 0)")
            }
        }
        if let maxNewTokens, maxNewTokens < 1 {
            throw TranscriptionError.invalidOption(name: "maxNewTokens", reason: "must be at least 1, got \(maxNewTokens)")
        }
    }
}
