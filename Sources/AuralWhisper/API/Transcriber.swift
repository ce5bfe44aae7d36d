import AuralVAD
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
    /// The window decoder the long-form loop runs, with the transcriber's compute context.
    public let windowDecoder: WindowDecoder
    /// The detector `DecodingOptions.vadFilter` runs; nil when the transcriber was made without one.
    public let voiceActivityDetector: SileroVAD?

    /// - Parameters:
    ///   - compute: where the transcription computes (the shared pool by default).
    ///   - voiceActivityDetector: the detector for `DecodingOptions.vadFilter`; nil when no call asks for it.
    public init(model: WhisperModel, compute: ComputeContext = .shared, voiceActivityDetector: SileroVAD? = nil) {
        self.model = model
        windowDecoder = WindowDecoder(model: model, compute: compute)
        self.voiceActivityDetector = voiceActivityDetector
    }

    /// - Parameters:
    ///   - threads: the most threads each transcription uses, its own included; nil uses every core. Other
    ///     transcriptions keep their own setting.
    ///   - voiceActivityDetector: the detector for `DecodingOptions.vadFilter`; nil when no call asks for it.
    public init(model: WhisperModel, threads: Int?, voiceActivityDetector: SileroVAD? = nil) {
        self.init(model: model, compute: ComputeContext(threads: threads), voiceActivityDetector: voiceActivityDetector)
    }

    /// Language probabilities of the first 30 seconds, highest first (multilingual models only).
    /// - Throws: `TranscriptionError.needsMultilingualModel` for an English-only model, `.invalidAudio` for bad samples.
    public func detectLanguage(_ samples: [Float]) throws -> [LanguageProbability] {
        guard model.isMultilingual else { throw TranscriptionError.needsMultilingualModel(feature: "language detection") }
        if let bad = samples.firstIndex(where: { !$0.isFinite }) {
            throw TranscriptionError.invalidAudio(reason: "sample \(bad) is \(samples[bad]), not a finite number")
        }
        // As faster-whisper: the log-mel of all the audio (normalised over all of it), then its first window.
        let mel = windowDecoder.compute.run { model.logMel.spectrogram(samples) }
        let window = windowDecoder.encode(
            melWindow: mel.window(start: 0, count: WhisperTime.windowFrames), contentFrames: min(mel.frames, WhisperTime.windowFrames))
        return windowDecoder.detectLanguage(window)
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
    ///   - isCancelled: asked between windows and before each decoded token; once it answers true the transcription
    ///     stops, dropping the window under way, and throws.
    ///   - onSegment: called with each segment as soon as its window is decoded.
    /// - Throws: `CancellationError` once `isCancelled` answers true, else what reading or decoding throws.
    public func transcribe(
        reading open: () throws -> any SampleReading, options: DecodingOptions = DecodingOptions(),
        isCancelled: () -> Bool = { false }, onSegment: (Segment) -> Void = { _ in }
    ) throws -> (info: TranscriptionInfo, segments: [Segment]) {
        var info: TranscriptionInfo?
        var segments: [Segment] = []
        try run(reading: open, options: options, onInfo: { info = $0 }, onSegment: {
            segments.append($0)
            onSegment($0)
        }, onProgress: { _ in }, isCancelled: isCancelled)
        if isCancelled() { throw CancellationError() }
        guard let info else { throw TranscriptionError.invalidAudio(reason: "the reading gave no audio") }
        return (info, segments)
    }

    /// Transcribes on a dedicated thread and delivers the info, then each segment, then progress, as they come.
    /// Cancelling the consumer's task (or ending iteration) stops decoding at the next token; the window under way
    /// gives no segments.
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

    /// The whole transcription on the calling thread (faster-whisper `generate_segments`): a seek loop over
    /// `WindowDecoder`, carrying the previous text, the random generator and the end of speech from window to window.
    ///
    /// `open` is called twice: the first reading finds the log-mel maximum, the second feeds the windows. With
    /// `options.vadFilter`, it is read once, whole, and the loop runs on the detected speech (see `SpeechFilter`).
    func run(
        reading open: () throws -> any SampleReading, options: DecodingOptions, onInfo: (TranscriptionInfo) -> Void,
        onSegment: (Segment) -> Void, onProgress: (Double) -> Void, isCancelled: () -> Bool
    ) throws {
        try options.validate()
        if let segmentOptions = options.vadFilter {
            guard let voiceActivityDetector else {
                throw TranscriptionError.invalidOption(
                    name: "vadFilter", reason: "needs a Transcriber made with a SileroVAD (voiceActivityDetector:)")
            }
            var reader = try open()
            var samples: [Float] = []
            while let piece = try reader.read() {
                if isCancelled() { return }
                samples += piece
            }
            let filter = SpeechFilter(samples: samples, detector: voiceActivityDetector, options: segmentOptions)
            let speech = filter.speech
            var inner = options
            inner.vadFilter = nil
            try run(
                reading: { ArraySampleReader(speech) }, options: inner,
                onInfo: { info in
                    var info = info
                    info.duration = Double(samples.count) / Double(WhisperTime.sampleRate)
                    onInfo(info)
                },
                onSegment: { onSegment(filter.restore($0)) }, onProgress: onProgress, isCancelled: isCancelled)
            return
        }
        let decoder = windowDecoder
        var firstReading = try open()
        let summary = try decoder.compute.run {
            try StreamingLogMel.scan(&firstReading, logMel: model.logMel, isCancelled: isCancelled)
        }
        let mel = MelWindows(reader: try open(), logMel: model.logMel, summary: summary)
        let duration = Double(summary.sampleCount) / Double(WhisperTime.sampleRate)
        let contentFrames = max(0, mel.frames - 1)
        func encodeWindow(at seek: Int, frames: Int) throws -> EncodedWindow {
            decoder.encode(melWindow: try mel.window(start: seek, count: frames), contentFrames: frames)
        }

        // Detection sees frames 0..<3000, the final padding frame included; its encoding is reused only when the first
        // window holds the same frames (faster-whisper encodes the two separately).
        var detectionWindow: EncodedWindow?
        let language = try decoder.resolveLanguage(options, window: try {
            let window = try encodeWindow(at: 0, frames: WhisperTime.windowFrames)
            detectionWindow = window
            return window
        }())
        onInfo(TranscriptionInfo(
            language: language.language, languageProbability: language.probability,
            allLanguageProbabilities: language.allProbabilities, duration: duration))

        let filters = LogitFilterSet.make(options: options, model: model)
        var allTokens: [Int] = []
        if let prompt = options.initialPrompt?.trimmingCharacters(in: .whitespacesAndNewlines) {
            allTokens = decoder.tokens(of: " " + prompt)
        }
        let prefixTokens = options.prefix.map { decoder.tokens(of: " " + $0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? []
        var promptResetSince = 0
        var seek = 0
        var index = 0
        var lastSpeechTime = 0.0
        var generator = SplitMix64(seed: options.seed)

        while seek < contentFrames {
            if isCancelled() { return }
            let segmentSize = min(WhisperTime.windowFrames, contentFrames - seek)
            if let threshold = options.silenceThreshold,
                try mel.loudestFrameRMS(from: seek * WhisperTime.samplesPerFrame, count: segmentSize * WhisperTime.samplesPerFrame) < threshold {
                seek += segmentSize
                onProgress(min(Double(seek) / Double(contentFrames), 1))
                continue
            }
            let window: EncodedWindow
            if seek == 0, segmentSize == WhisperTime.windowFrames, let detectionWindow {
                window = detectionWindow
            } else {
                window = try encodeWindow(at: seek, frames: segmentSize)
            }
            if isCancelled() { return }
            let request = WindowRequest(
                language: language.language, previousTokens: Array(allTokens[promptResetSince...]),
                prefixTokens: seek == 0 ? prefixTokens : [], timeOffset: WhisperTime.seconds(frame: seek),
                lastSpeechTime: lastSpeechTime)
            let result = decoder.compute.run {
                decoder.decode(
                    window, request: request, options: options, filters: filters, generator: &generator,
                    isCancelled: isCancelled)
            }
            // A cancelled decode stopped mid-window: its result is incomplete.
            if isCancelled() { return }
            let previousSeek = seek
            seek += result.consumedFrames
            lastSpeechTime = result.lastSpeechTime
            if result.isNoSpeech {
                onProgress(min(Double(seek) / Double(contentFrames), 1))
                continue
            }
            for var segment in result.segments {
                allTokens += segment.tokens
                index += 1
                segment.id = index
                segment.seek = previousSeek
                onSegment(segment)
            }
            if !options.conditionOnPreviousText || result.temperature > options.promptResetOnTemperature {
                promptResetSince = allTokens.count
            }
            onProgress(contentFrames == 0 ? 1 : min(Double(seek) / Double(contentFrames), 1))
        }
    }
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
