import Foundation

/// Decodes one window of audio (at most 30 s) at a time: the building block of `Transcriber`'s long-form loop and of
/// live transcription, which re-decodes a growing buffer with the text it has already committed.
///
/// ```swift
/// let decoder = WindowDecoder(model: model)
/// let window = try decoder.encode(samples)                      // ≤ 30 s of 16 kHz mono audio
/// let language = try decoder.resolveLanguage(DecodingOptions(), window: window).language
/// var request = WindowRequest(language: language)
/// request.previousTokens = decoder.tokens(of: "Earlier text.")  // conditions the decoder (<|startofprev|>)
/// request.prefixTokens = decoder.tokens(of: "Words already committed")  // forced, then continued
/// let result = try decoder.decode(window, request: request, options: DecodingOptions(beamSize: 1, wordTimestamps: true))
/// print(result.segments.map(\.text).joined())
/// ```
///
/// A decoder is a value over an immutable model: any number of decodes may run at once, each on its calling thread,
/// split over at most `compute.threads` threads of the engine's pool. Decodes are synchronous and heavy (tens to
/// hundreds of milliseconds): call them from a thread of your own, never from Swift's cooperative pool.
public struct WindowDecoder: Sendable {
    /// The model this decoder runs.
    public let model: WhisperModel
    /// Where the decodes compute.
    public let compute: ComputeContext

    public init(model: WhisperModel, compute: ComputeContext = .shared) {
        self.model = model
        self.compute = compute
    }

    // MARK: - Text

    /// The text tokens of `text` (no special tokens), as a prompt or prefix needs them. Whisper's words start with a
    /// space, so a continuation is usually given with its leading space.
    public func tokens(of text: String) -> [Int] { model.tokenizer.encode(text) }

    /// The text of `tokens`; special and timestamp tokens are left out.
    public func text(of tokens: [Int]) -> String { model.tokenizer.decode(tokens) }

    /// The words of `tokens` with the tokens each is made of (spaces lead; for Chinese, Japanese, Thai, … each
    /// character that forms a whole UTF-8 sequence is a word).
    public func words(of tokens: [Int], language: String) -> [(word: String, tokens: [Int])] {
        model.tokenizer.splitToWordTokens(tokens.filter { $0 < model.tokenizer.eot }, language: language)
    }

    // MARK: - Audio

    /// Encodes up to 30 s of 16 kHz mono samples, normalising the log-mel over these samples (as Whisper does for
    /// one clip); a longer input keeps its first 30 s.
    ///
    /// `windowFrames` (even, 2…3000 mel frames of 10 ms) shortens the window the encoder runs on: its cost falls about
    /// in proportion, and the audio must fit in it. Whisper was trained on 30 s windows only; a shorter one is
    /// whisper.cpp's `audio_ctx`, and it changes the text. `melCache` (one per live session) computes only the
    /// log-mel frames that differ from the last encode's, with the same result.
    /// - Throws: `TranscriptionError.invalidAudio` for a sample that is not finite.
    public func encode(_ samples: [Float], windowFrames: Int = WhisperTime.windowFrames, melCache: LogMelCache? = nil) throws -> EncodedWindow {
        precondition(windowFrames >= 2 && windowFrames <= WhisperTime.windowFrames && windowFrames % 2 == 0,
            "windowFrames must be even and within 2...\(WhisperTime.windowFrames)")
        let (mel, frames) = try windowMel(samples, windowFrames: windowFrames, melCache: melCache)
        return encode(melWindow: mel, contentFrames: frames, windowFrames: windowFrames)
    }

    /// Encodes up to 30 s of 16 kHz mono samples in a full window like `encode(_:)`, and keeps every encoder layer's
    /// keys and values, so that encodes of the same window with more audio (`encode(_:computing:reusing:)`) cost
    /// only the part they compute. `melCache` as in `encode(_:windowFrames:melCache:)`.
    /// - Throws: `TranscriptionError.invalidAudio` for a sample that is not finite.
    public func encodeForReuse(_ samples: [Float], melCache: LogMelCache? = nil) throws -> ReusableEncoding {
        let (mel, contentFrames) = try windowMel(samples, melCache: melCache)
        return compute.run {
            let memory = Encoder.encodeRecording(mel, frames: WhisperTime.windowFrames, weights: model.encoder)
            let crossAttention = CrossAttentionStore()
            var window = EncodedWindow(
                output: memory.output, contentFrames: contentFrames, positions: memory.positions, model: model)
            window.crossAttentionReuse = CrossAttentionReuse(store: crossAttention, fresh: 0..<memory.positions)
            return ReusableEncoding(window: window, memory: memory, crossAttention: crossAttention)
        }
    }

    /// Encodes `samples` in a full window, computing only the window's seconds `computed` (rounded out to 20 ms
    /// positions: the new audio and some padding after it) and taking every other position from `earlier`, an encode
    /// of the same window that held less audio (`encodeForReuse`). Its cost is that of `computed` instead of 30 s.
    ///
    /// Whisper's encoder attends over the whole window, so this is not the full encode: the positions taken from
    /// `earlier` keep what they were when they heard its audio. The text may differ from a full encode's. `melCache`
    /// as in `encode(_:windowFrames:melCache:)`.
    /// - Throws: `TranscriptionError.invalidAudio` for a sample that is not finite.
    public func encode(
        _ samples: [Float], computing computed: Range<Double>, reusing earlier: ReusableEncoding, melCache: LogMelCache? = nil
    ) throws -> EncodedWindow {
        let (mel, contentFrames) = try windowMel(samples, melCache: melCache)
        let first = Int((computed.lowerBound / WhisperTime.secondsPerPosition).rounded(.down))
        let end = Int((computed.upperBound / WhisperTime.secondsPerPosition).rounded(.up))
        let fresh = max(0, first)..<max(max(0, first), min(end, earlier.memory.positions))
        return compute.run {
            let output = Encoder.encode(
                mel, frames: WhisperTime.windowFrames, weights: model.encoder, fresh: fresh, reusing: earlier.memory)
            var window = EncodedWindow(
                output: output, contentFrames: contentFrames, positions: earlier.memory.positions, model: model)
            window.crossAttentionReuse = CrossAttentionReuse(store: earlier.crossAttention, fresh: fresh)
            return window
        }
    }

    /// The normalised log-mel of up to 30 s of samples as a window of `windowFrames`, and its frames of audio.
    private func windowMel(
        _ samples: [Float], windowFrames: Int = WhisperTime.windowFrames, melCache: LogMelCache? = nil
    ) throws -> (mel: [Float], contentFrames: Int) {
        if let bad = samples.firstIndex(where: { !$0.isFinite }) {
            throw TranscriptionError.invalidAudio(reason: "sample \(bad) is \(samples[bad]), not a finite number")
        }
        let clip = samples.count > WhisperTime.windowSamples ? Array(samples.prefix(WhisperTime.windowSamples)) : samples
        let mel = compute.run { melCache?.spectrogram(clip, logMel: model.logMel) ?? model.logMel.spectrogram(clip) }
        let frames = min(max(0, mel.frames - 1), windowFrames)
        return (mel.window(start: 0, count: frames, width: windowFrames), frames)
    }

    /// Encodes a normalised [melCount × windowFrames] window whose first `contentFrames` frames are audio.
    func encode(melWindow: [Float], contentFrames: Int, windowFrames: Int = WhisperTime.windowFrames) -> EncodedWindow {
        compute.run {
            EncodedWindow(
                output: Encoder.encode(melWindow, frames: windowFrames, weights: model.encoder),
                contentFrames: contentFrames, positions: windowFrames / 2, model: model)
        }
    }

    // MARK: - Language

    /// The language to decode in: `options.language` when set (checked against the model), English for an
    /// English-only model, else the most probable language of `window`.
    /// - Throws: `TranscriptionError.unsupportedLanguage`, or `.needsMultilingualModel` when translating with an
    ///   English-only model.
    public func resolveLanguage(_ options: DecodingOptions, window: @autoclosure () throws -> EncodedWindow) throws -> LanguageResolution {
        var resolution = LanguageResolution(language: "en", probability: 1, allProbabilities: [])
        if let requested = options.language?.lowercased(), !requested.isEmpty {
            if model.isMultilingual {
                guard model.tokenizer.languageToken(for: requested) != nil else {
                    throw TranscriptionError.unsupportedLanguage(code: requested)
                }
                resolution.language = requested
            } else if requested != "en" {
                throw TranscriptionError.unsupportedLanguage(code: requested)
            }
        } else if model.isMultilingual {
            let probabilities = detectLanguage(try window())
            resolution = LanguageResolution(
                language: probabilities[0].language, probability: probabilities[0].probability,
                allProbabilities: probabilities)
        }
        if options.task == .translate && !model.isMultilingual {
            throw TranscriptionError.needsMultilingualModel(feature: "translation")
        }
        return resolution
    }

    /// Probabilities of every language for `window`, highest first (one decoder step; multilingual models only, an
    /// English-only model gives English alone).
    public func detectLanguage(_ window: EncodedWindow) -> [LanguageProbability] {
        guard model.isMultilingual else { return [LanguageProbability(language: "en", probability: 1)] }
        return compute.run {
            LanguageDetector.probabilities(model: model, encoderOutput: window.output, audioLength: window.positions)
        }
    }

    // MARK: - Decoding

    /// Decodes `window` with temperature fallback, splits the tokens into segments at timestamp pairs and, with
    /// `options.wordTimestamps`, times every word.
    ///
    /// `options` supplies the search (beam size, temperatures, thresholds, suppression, timestamps); its prompt,
    /// prefix and language fields are not read: `request` carries them as tokens and a resolved language.
    public func decode(_ window: EncodedWindow, request: WindowRequest, options: DecodingOptions) throws -> WindowResult {
        try options.validate()
        var generator = SplitMix64(seed: options.seed)
        let filters = LogitFilterSet.make(options: options, model: model)
        return compute.run {
            decode(window, request: request, options: options, filters: filters, generator: &generator)
        }
    }

    /// `decode(_:request:options:)` with the filters and random generator a long-form run keeps across windows.
    /// `isCancelled` is asked before each token; once it answers true the decode stops and returns an incomplete
    /// result without segments, which the caller discards.
    func decode(
        _ window: EncodedWindow, request: WindowRequest, options: DecodingOptions, filters: [any LogitFiltering],
        generator: inout SplitMix64, isCancelled: () -> Bool = { false }
    ) -> WindowResult {
        let tokenizer = model.tokenizer
        let sotSequence = PromptBuilder.startOfTranscript(model: model, language: request.language, task: options.task)
        let prompt = PromptBuilder(model: model).prompt(
            previous: request.previousTokens, sotSequence: sotSequence, prefix: request.prefixTokens,
            withoutTimestamps: options.withoutTimestamps)
        let state = DecoderState(
            weights: model.decoder, encoderOutput: window.output, audioLength: window.positions,
            beamCapacity: max(options.beamSize, options.bestOf), reuse: window.crossAttentionReuse)
        let search = Search(model: model, state: state, filters: filters)
        let decoded = Fallback.decode(
            search: search, prompt: prompt, options: options, draft: request.draftTokens, generator: &generator,
            isCancelled: isCancelled)
        let segmentSize = window.contentFrames
        var result = WindowResult(
            tokens: decoded.result.tokens, segments: [], avgLogprob: decoded.avgLogprob,
            noSpeechProbability: decoded.result.noSpeechProb, temperature: decoded.temperature,
            compressionRatio: decoded.compressionRatio, alternatives: decoded.result.alternatives,
            consumedFrames: segmentSize, isNoSpeech: false, lastSpeechTime: request.lastSpeechTime)
        if isCancelled() { return result }

        if let noSpeechThreshold = options.noSpeechThreshold, decoded.result.noSpeechProb > noSpeechThreshold {
            let confident = options.logProbThreshold.map { decoded.avgLogprob > $0 } ?? false
            if !confident {
                result.isNoSpeech = true
                return result
            }
        }

        var generated = decoded.result.tokens
        if request.alignsPrefix { generated = request.prefixTokens + generated }
        let split = TimestampSplitter(timestampBegin: tokenizer.timestampBegin).split(
            tokens: generated, timeOffset: request.timeOffset, segmentSize: segmentSize)
        var pieces = split.pieces
        var consumed = split.consumedFrames
        if options.wordTimestamps {
            WordAligner.addWordTimestamps(
                to: &pieces, model: model, state: state, sotSequence: sotSequence, language: request.language,
                timeOffset: request.timeOffset, segmentSize: segmentSize, prependPunctuations: options.prependPunctuations,
                appendPunctuations: options.appendPunctuations, lastSpeechTimestamp: request.lastSpeechTime,
                unscoredTokens: request.alignsPrefix && !request.scoresPrefix ? request.prefixTokens.count : 0)
            // faster-whisper `get_end`: the last word's end, else the last segment's end.
            let lastEnd = pieces.last(where: { !($0.words ?? []).isEmpty })?.words?.last?.end ?? pieces.last?.end
            if !split.singleTimestampEnding, let lastEnd, lastEnd > request.timeOffset {
                consumed = WhisperTime.frame(seconds: lastEnd) - WhisperTime.frame(seconds: request.timeOffset)
            }
            if let lastEnd { result.lastSpeechTime = lastEnd }
        }
        result.consumedFrames = consumed
        result.segments = pieces.compactMap { piece in
            let text = tokenizer.decode(piece.tokens)
            if piece.start == piece.end || text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return nil }
            return Segment(
                id: 0, seek: WhisperTime.frame(seconds: request.timeOffset), start: piece.start, end: piece.end, text: text,
                tokens: piece.tokens, temperature: decoded.temperature, avgLogprob: decoded.avgLogprob,
                compressionRatio: decoded.compressionRatio, noSpeechProb: decoded.result.noSpeechProb,
                words: options.wordTimestamps ? (piece.words ?? []) : nil)
        }
        return result
    }
}

/// One window of audio run through the encoder, ready for any number of decodes.
public struct EncodedWindow: @unchecked Sendable {
    /// The encoder's output [positions × width]; never written after encoding.
    let output: Tensor
    /// Mel frames of real audio in the window (10 ms each, at most 3000); the rest is padding.
    public let contentFrames: Int
    /// Encoder positions (20 ms each): 1500 for a full 30-second window.
    let positions: Int
    /// The model whose encoder made it.
    let model: WhisperModel
    /// For a window of `WindowDecoder.encodeForReuse` or `encode(_:computing:reusing:)`: where the decoder's
    /// cross-attention keys and values of the full encode are kept, and which positions differ from it.
    var crossAttentionReuse: CrossAttentionReuse?

    /// Seconds of real audio in the window.
    public var duration: Double { WhisperTime.seconds(frame: contentFrames) }
}

/// A full window's encode with every encoder layer's keys and values kept (`WindowDecoder.encodeForReuse`): later
/// encodes of the same window with more audio take the positions they do not compute from it.
public struct ReusableEncoding: Sendable {
    /// The encoded window, as `WindowDecoder.encode(_:)` returns it.
    public let window: EncodedWindow
    let memory: EncoderMemory
    /// The decoder's cross-attention keys and values of `window`, kept by its first decode for the later encodes.
    let crossAttention: CrossAttentionStore
}

/// What to decode a window with besides `DecodingOptions`.
public struct WindowRequest: Sendable, Hashable {
    /// The language code to decode in (see `WindowDecoder.resolveLanguage`).
    public var language: String
    /// Text tokens of earlier text that condition the decoder (after `<|startofprev|>`); the newest last. Only the last
    /// 223 are used.
    public var previousTokens: [Int]
    /// Text tokens forced at the start of the window's text, which the decoder continues.
    public var prefixTokens: [Int]
    /// Whether the prefix counts as part of the result: its words get times and it begins the first segment.
    /// Otherwise (faster-whisper's `prefix`) the result holds only the tokens generated after it.
    public var alignsPrefix: Bool
    /// Whether the words of an aligned prefix get their probabilities. Each token's probability costs a product with
    /// the whole vocabulary; with false the prefix's tokens count as probability 1 (a decoder that already judged
    /// those words, as live transcription's committed ones, skips that cost).
    public var scoresPrefix: Bool = true
    /// Tokens a decode of less of this audio found after the prefix. Beam search at temperature 0 checks them in its
    /// first pass and starts after the longest run of them that the decoder finds most likely, each with a
    /// probability of at least `Search.draftMinimumProbability` (0.3), instead of generating them one step at a time. Ignored at other
    /// temperatures, with greedy decoding and without a start-of-transcript sequence before them.
    public var draftTokens: [Int] = []
    /// Seconds added to every time in the result: where the window starts in the audio.
    public var timeOffset: Double
    /// Where speech ended before this window, in seconds (a word-timing rule reads it).
    public var lastSpeechTime: Double

    public init(
        language: String = "en", previousTokens: [Int] = [], prefixTokens: [Int] = [], alignsPrefix: Bool = false,
        timeOffset: Double = 0, lastSpeechTime: Double = 0
    ) {
        self.language = language
        self.previousTokens = previousTokens
        self.prefixTokens = prefixTokens
        self.alignsPrefix = alignsPrefix
        self.timeOffset = timeOffset
        self.lastSpeechTime = lastSpeechTime
    }
}

/// One decoded window.
public struct WindowResult: Sendable {
    /// The tokens generated after the prompt (timestamp tokens included, end-of-text excluded).
    public var tokens: [Int]
    /// The window's segments with non-empty text, in order; `id` is 0 (the caller numbers them). Empty when
    /// `isNoSpeech`.
    public var segments: [Segment]
    /// Mean log probability of the generated tokens (end-of-text included).
    public var avgLogprob: Double
    /// Probability of the no-speech token at the start of the transcript.
    public var noSpeechProbability: Double
    /// Temperature of the accepted decode (after fallback).
    public var temperature: Double
    /// gzip compression ratio of the text (high means repetitive).
    public var compressionRatio: Double
    /// The search's hypotheses, most probable first, each as generated tokens (`tokens` is the first). Beam search
    /// gives up to `beamSize` · `patience` finished hypotheses; greedy decoding gives one.
    public var alternatives: [[Int]]
    /// Mel frames of the window the text accounts for; a long-form loop continues there.
    public var consumedFrames: Int
    /// Whether the window was judged silent (`noSpeechThreshold` and `logProbThreshold`); it then has no segments.
    public var isNoSpeech: Bool
    /// Where speech ends in this window (the last word's end with word timestamps), else the request's value.
    public var lastSpeechTime: Double
}

/// The language a window is decoded in, and how it was chosen.
public struct LanguageResolution: Sendable, Hashable {
    /// The language code.
    public var language: String
    /// Its detected probability (1 when given or English-only).
    public var probability: Double
    /// Every language's probability, highest first, when detected; otherwise empty.
    public var allProbabilities: [LanguageProbability]
}
