import Foundation

/// Transcribes 16 kHz mono audio of any length with a loaded `WhisperModel`: log-mel, 30-second windows, temperature
/// fallback, previous-text conditioning, segment timestamps, and optional word timings.
///
/// Follows faster-whisper 1.2.1's `WhisperModel.transcribe` (its defaults and its long-form loop), so the same model
/// folder gives the same tokens.
///
/// ```swift
/// let model = try WhisperModel(folder: modelFolder)
/// let transcriber = Transcriber(model: model)
/// let (info, segments) = try transcriber.transcribe(samples, options: DecodingOptions(beamSize: 1))
/// print(info.language, segments.map(\.text).joined())
/// ```
///
/// Each call keeps its own state, so one transcriber (and one model) can serve concurrent calls. The synchronous
/// methods compute on the calling thread; `segments(_:options:)` computes on a thread of its own, never on Swift's
/// cooperative pool.
public struct Transcriber: Sendable {
    /// The model this transcriber runs.
    public let model: WhisperModel

    /// - Parameter threads: threads the engine computes on, this one included (process-wide); nil uses every core.
    public init(model: WhisperModel, threads: Int? = nil) {
        self.model = model
        if let threads { BLAS.setThreads(threads) }
    }

    /// Language probabilities of the first 30 seconds, highest first (multilingual models only).
    /// - Throws: `WhisperModelError.unsupportedLanguage` for an English-only model, `.invalidAudio` for bad samples.
    public func detectLanguage(_ samples: [Float]) throws -> [LanguageProbability] {
        guard model.isMultilingual else { throw WhisperModelError.unsupportedLanguage(code: "detection with an English-only model") }
        try Self.validate(samples)
        let mel = model.logMel.spectrogram(samples)
        let window = mel.window(start: 0, count: LogMel.windowFrames)
        let encoded = Encoder.encode(window, frames: LogMel.windowFrames, weights: model.encoder)
        return LanguageDetector.probabilities(model: model, encoderOutput: encoded, audioLength: model.audioContext)
    }

    /// Transcribes all of `samples` and returns the segments once done.
    /// - Parameter onSegment: called with each segment as soon as its window is decoded.
    public func transcribe(
        _ samples: [Float], options: DecodingOptions = DecodingOptions(), onSegment: (Segment) -> Void = { _ in }
    ) throws -> (info: TranscriptionInfo, segments: [Segment]) {
        try transcribe(reading: { ArraySampleReader(samples) }, options: options, onSegment: onSegment)
    }

    /// Transcribes audio read in pieces, holding about one 30-second window of it at a time, and returns the segments
    /// once done. The segments are the same as for the whole audio in one array.
    /// - Parameters:
    ///   - open: starts a reading of the audio from its beginning; called twice (see `SampleReading`).
    ///   - onSegment: called with each segment as soon as its window is decoded.
    public func transcribe(
        reading open: () throws -> any SampleReading, options: DecodingOptions = DecodingOptions(),
        onSegment: (Segment) -> Void = { _ in }
    ) throws -> (info: TranscriptionInfo, segments: [Segment]) {
        var info: TranscriptionInfo?
        var segments: [Segment] = []
        try run(reading: open, options: options, onInfo: { info = $0 }, onSegment: {
            segments.append($0)
            onSegment($0)
        }, onProgress: { _ in }, isCancelled: { false })
        return (info!, segments)
    }

    /// Transcribes on a dedicated thread and delivers the info, then each segment, then progress, as they come.
    /// Cancelling the consumer's task (or ending iteration) stops decoding after the current window.
    public func events(_ samples: [Float], options: DecodingOptions = DecodingOptions()) -> AsyncThrowingStream<TranscriptionEvent, Error> {
        events(reading: { ArraySampleReader(samples) }, options: options)
    }

    /// `events(_:options:)` for audio read in pieces (see `transcribe(reading:options:onSegment:)`); `open` is called
    /// on the transcription's thread.
    public func events(
        reading open: @escaping @Sendable () throws -> any SampleReading, options: DecodingOptions = DecodingOptions()
    ) -> AsyncThrowingStream<TranscriptionEvent, Error> {
        AsyncThrowingStream { continuation in
            let cancelled = CancellationFlag()
            continuation.onTermination = { _ in cancelled.set() }
            let thread = Thread {
                do {
                    try run(
                        reading: open, options: options,
                        onInfo: { continuation.yield(.info($0)) },
                        onSegment: { continuation.yield(.segment($0)) },
                        onProgress: { continuation.yield(.progress($0)) },
                        isCancelled: { cancelled.isSet })
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The segments of `samples` as they are decoded (see `events(_:options:)`).
    public func segments(_ samples: [Float], options: DecodingOptions = DecodingOptions()) -> AsyncThrowingStream<Segment, Error> {
        let events = events(samples, options: options)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in events { if case .segment(let s) = event { continuation.yield(s) } }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: - The long-form loop

    private static func validate(_ samples: [Float]) throws {
        if let bad = samples.firstIndex(where: { !$0.isFinite }) {
            throw WhisperModelError.invalidAudio(reason: "sample \(bad) is \(samples[bad]), not a finite number")
        }
    }

    /// The whole transcription on the calling thread (faster-whisper `generate_segments`).
    ///
    /// `open` is called twice: the first reading finds the log-mel maximum, the second feeds the windows.
    func run(
        reading open: () throws -> any SampleReading, options: DecodingOptions, onInfo: (TranscriptionInfo) -> Void,
        onSegment: (Segment) -> Void, onProgress: (Double) -> Void, isCancelled: () -> Bool
    ) throws {
        try options.validate()
        let tokenizer = model.tokenizer
        var firstReading = try open()
        let summary = try StreamingLogMel.scan(&firstReading, logMel: model.logMel, isCancelled: isCancelled)
        let mel = MelWindows(reader: try open(), logMel: model.logMel, summary: summary)
        let duration = Double(summary.sampleCount) / Double(LogMel.sampleRate)
        let contentFrames = max(0, mel.frames - 1)

        var firstEncoding: Tensor?
        var language = "en"
        var languageProbability = 1.0
        var allProbabilities: [LanguageProbability] = []
        if let requested = options.language?.lowercased(), !requested.isEmpty {
            if model.isMultilingual {
                guard tokenizer.languageToken(for: requested) != nil else { throw WhisperModelError.unsupportedLanguage(code: requested) }
                language = requested
            }
        } else if model.isMultilingual {
            let encoded = Encoder.encode(try mel.window(start: 0, count: LogMel.windowFrames), frames: LogMel.windowFrames, weights: model.encoder)
            firstEncoding = encoded
            allProbabilities = LanguageDetector.probabilities(model: model, encoderOutput: encoded, audioLength: model.audioContext)
            language = allProbabilities[0].language
            languageProbability = allProbabilities[0].probability
        }
        if options.task == .translate && !model.isMultilingual {
            throw WhisperModelError.invalidOption(name: "task", reason: "translation needs a multilingual model; this one is English-only")
        }
        onInfo(TranscriptionInfo(
            language: language, languageProbability: languageProbability, allLanguageProbabilities: allProbabilities,
            duration: duration))

        let sotSequence = model.isMultilingual
            ? [tokenizer.sot, tokenizer.languageToken(for: language)!, options.task == .translate ? tokenizer.translate : tokenizer.transcribe]
            : [tokenizer.sot]
        var filters: [any LogitFiltering] = []
        let suppress = options.suppressTokens.flatMap { $0 == -1 ? model.suppressTokens : [$0] }
            + (options.suppressTokens.contains(-1) ? [] : [tokenizer.transcribe, tokenizer.translate, tokenizer.sot, tokenizer.startOfPrev, tokenizer.startOfLM, tokenizer.noSpeech])
        if !suppress.isEmpty { filters.append(SuppressTokens(tokens: suppress)) }
        if options.suppressBlank { filters.append(SuppressBlank(tokens: model.suppressTokensAtBegin)) }
        if !options.withoutTimestamps {
            filters.append(TimestampRules(
                endOfText: tokenizer.eot, noTimestamps: tokenizer.noTimestamps, timestampBegin: tokenizer.timestampBegin,
                maxInitialTimestampIndex: Int((options.maxInitialTimestamp / 0.02).rounded())))
        }

        var allTokens: [Int] = []
        if let prompt = options.initialPrompt?.trimmingCharacters(in: .whitespacesAndNewlines) {
            allTokens = tokenizer.encode(" " + prompt)
        }
        var promptResetSince = 0
        var seek = 0
        var index = 0
        var lastSpeechTimestamp = 0.0
        var generator = SplitMix64(seed: options.seed)
        let prefixTokens = options.prefix.map { tokenizer.encode(" " + $0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? []

        while seek < contentFrames {
            if isCancelled() { return }
            let timeOffset = Double(seek) * 0.01
            let segmentSize = min(LogMel.windowFrames, contentFrames - seek)
            if let threshold = options.silenceThreshold,
                try mel.loudestFrameRMS(from: seek * LogMel.hopLength, count: segmentSize * LogMel.hopLength) < threshold {
                seek += segmentSize
                onProgress(min(Double(seek) / Double(contentFrames), 1))
                continue
            }
            let encoded: Tensor
            // Detection saw frames 0..<3000 including the final padding frame; reuse its encoding only when this
            // window holds the same frames (faster-whisper encodes the two separately).
            if seek == 0, segmentSize == LogMel.windowFrames, let firstEncoding {
                encoded = firstEncoding
            } else {
                encoded = Encoder.encode(try mel.window(start: seek, count: segmentSize), frames: LogMel.windowFrames, weights: model.encoder)
            }
            let state = DecoderState(
                weights: model.decoder, encoderOutput: encoded, audioLength: model.audioContext,
                beamCapacity: max(options.beamSize, options.bestOf))

            var prompt: [Int] = []
            let previous = Array(allTokens[promptResetSince...])
            if !previous.isEmpty {
                prompt.append(tokenizer.startOfPrev)
                prompt += previous.suffix(model.textContext / 2 - 1)
            }
            prompt += sotSequence
            if options.withoutTimestamps { prompt.append(tokenizer.noTimestamps) }
            if seek == 0 && !prefixTokens.isEmpty {
                if !options.withoutTimestamps { prompt.append(tokenizer.timestampBegin) }
                prompt += prefixTokens.prefix(model.textContext / 2 - 1)
            }

            let search = Search(model: model, state: state, filters: filters)
            let decoded = decodeWithFallback(search: search, prompt: prompt, options: options, generator: &generator)
            let result = decoded.result

            if let noSpeechThreshold = options.noSpeechThreshold, result.noSpeechProb > noSpeechThreshold {
                let confident = options.logProbThreshold.map { decoded.avgLogprob > $0 } ?? false
                if !confident {
                    seek += segmentSize
                    onProgress(min(Double(seek) / Double(contentFrames), 1))
                    continue
                }
            }

            let previousSeek = seek
            let split = splitByTimestamps(tokens: result.tokens, timeOffset: timeOffset, segmentSize: segmentSize, seek: seek)
            var pieces = split.pieces
            seek = split.seek
            if options.wordTimestamps {
                WordAligner.addWordTimestamps(
                    to: &pieces, model: model, state: state, sotSequence: sotSequence, language: language,
                    timeOffset: timeOffset, segmentSize: segmentSize, prependPunctuations: options.prependPunctuations,
                    appendPunctuations: options.appendPunctuations, lastSpeechTimestamp: lastSpeechTimestamp)
                // faster-whisper `get_end`: the last word's end, else the last segment's end.
                let lastEnd = pieces.last(where: { !($0.words ?? []).isEmpty })?.words?.last?.end ?? pieces.last?.end
                if !split.singleTimestampEnding, let lastEnd, lastEnd > timeOffset {
                    seek = Int((lastEnd * 100).rounded(.toNearestOrEven))
                }
                if let lastEnd { lastSpeechTimestamp = lastEnd }
            }

            for piece in pieces {
                let text = tokenizer.decode(piece.tokens)
                if piece.start == piece.end || text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { continue }
                allTokens += piece.tokens
                index += 1
                onSegment(Segment(
                    id: index, seek: previousSeek, start: piece.start, end: piece.end, text: text, tokens: piece.tokens,
                    temperature: decoded.temperature, avgLogprob: decoded.avgLogprob,
                    compressionRatio: decoded.compressionRatio, noSpeechProb: result.noSpeechProb,
                    words: options.wordTimestamps ? (piece.words ?? []) : nil))
            }
            if !options.conditionOnPreviousText || decoded.temperature > options.promptResetOnTemperature {
                promptResetSince = allTokens.count
            }
            onProgress(contentFrames == 0 ? 1 : min(Double(seek) / Double(contentFrames), 1))
        }
    }

    /// One window's accepted decode with the numbers the fallback judged it by.
    private struct FallbackResult {
        var result: DecodeResult
        var avgLogprob: Double
        var temperature: Double
        var compressionRatio: Double
    }

    /// Tries each temperature until a decode is neither repetitive nor improbable (faster-whisper
    /// `generate_with_fallback`); when all fail, keeps the most probable non-repetitive one.
    private func decodeWithFallback(
        search: Search, prompt: [Int], options: DecodingOptions, generator: inout SplitMix64
    ) -> FallbackResult {
        var all: [FallbackResult] = []
        var belowCompressionThreshold: [FallbackResult] = []
        for temperature in options.temperatures {
            let result = search.decode(
                prompt: prompt, temperature: temperature, beamSize: options.beamSize, bestOf: options.bestOf,
                patience: options.patience, lengthPenalty: options.lengthPenalty, maxNewTokens: options.maxNewTokens,
                generator: &generator)
            let text = model.tokenizer.decode(result.tokens).trimmingCharacters(in: .whitespacesAndNewlines)
            let candidate = FallbackResult(
                result: result, avgLogprob: result.avgLogprob, temperature: temperature,
                compressionRatio: compressionRatio(text))
            all.append(candidate)
            var needsFallback = false
            if let threshold = options.compressionRatioThreshold {
                if candidate.compressionRatio > threshold { needsFallback = true } else { belowCompressionThreshold.append(candidate) }
            }
            if let threshold = options.logProbThreshold, candidate.avgLogprob < threshold { needsFallback = true }
            if let noSpeech = options.noSpeechThreshold, let logProb = options.logProbThreshold,
                result.noSpeechProb > noSpeech, candidate.avgLogprob < logProb {
                needsFallback = false
            }
            if !needsFallback { return candidate }
        }
        var best = (belowCompressionThreshold.isEmpty ? all : belowCompressionThreshold).max { $0.avgLogprob < $1.avgLogprob }!
        best.temperature = options.temperatures.last!
        return best
    }

    /// Cuts a window's tokens into segments at pairs of timestamps (faster-whisper `_split_segments_by_timestamps`).
    private func splitByTimestamps(
        tokens: [Int], timeOffset: Double, segmentSize: Int, seek: Int
    ) -> (pieces: [PendingSegment], seek: Int, singleTimestampEnding: Bool) {
        let begin = model.tokenizer.timestampBegin
        let singleTimestampEnding = tokens.count >= 2 && tokens[tokens.count - 2] < begin && tokens[tokens.count - 1] >= begin
        let consecutive = tokens.indices.filter { $0 > 0 && tokens[$0] >= begin && tokens[$0 - 1] >= begin }
        var pieces: [PendingSegment] = []
        var newSeek = seek
        if !consecutive.isEmpty {
            var slices = consecutive
            if singleTimestampEnding { slices.append(tokens.count) }
            var lastSlice = 0
            for current in slices {
                let sliced = Array(tokens[lastSlice..<current])
                let start = timeOffset + Double(sliced[0] - begin) * 0.02
                let end = timeOffset + Double(sliced[sliced.count - 1] - begin) * 0.02
                pieces.append(PendingSegment(start: start, end: end, tokens: sliced))
                lastSlice = current
            }
            if singleTimestampEnding {
                newSeek += segmentSize
            } else {
                newSeek += (tokens[lastSlice - 1] - begin) * 2
            }
        } else {
            var duration = Double(segmentSize) * 0.01
            if let last = tokens.last(where: { $0 >= begin }), last != begin {
                duration = Double(last - begin) * 0.02
            }
            pieces.append(PendingSegment(start: timeOffset, end: timeOffset + duration, tokens: tokens))
            newSeek += segmentSize
        }
        return (pieces, newSeek, singleTimestampEnding)
    }
}

/// A segment of one window before it is accepted: its times, its tokens (timestamps included), and its words.
struct PendingSegment {
    var start: Double
    var end: Double
    var tokens: [Int]
    var words: [WordTiming]?
}

/// What `Transcriber.events` delivers.
public enum TranscriptionEvent: Sendable {
    /// The language and duration, once known (before any segment).
    case info(TranscriptionInfo)
    /// A decoded segment; segments arrive in order.
    case segment(Segment)
    /// The fraction of the audio consumed, 0...1.
    case progress(Double)
}

/// A thread-safe flag that the consumer sets to stop a transcription.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
