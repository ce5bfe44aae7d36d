import AVFoundation
import AuralAudio
import AuralWhisper
import Foundation
import Speech

/// Live speech to text: microphone (or any audio source) in, volatile and final results out.
///
/// ```swift
/// let session = SpeechSession(locale: Locale(identifier: "en-US"))
/// for try await result in session.startTranscribing() {
///     if result.isFinal {
///         print("Final:", String(result.text.characters))
///     } else {
///         print("Partial:", String(result.text.characters))
///     }
/// }
/// ```
///
/// The session is built as upstream AuralKit is, on the Speech framework's layer: each run creates a
/// `SpeechTranscriber` (and a `SpeechDetector` with voice activation) in a `SpeechAnalyzer`, and feeds it the
/// source's audio as `AnalyzerInput`. Volatile results well up while someone speaks and are replaced wholesale by the
/// next one; a final result covers a phrase (up to a sentence end or a pause), and finals only accumulate: a final is
/// never revised, repeated or reordered, and the finals of a session concatenated are its whole transcript. `stopTranscribing()` decodes the audio already captured and delivers it as final before the stream
/// ends, so nothing said before the stop is lost.
///
/// Isolation: like AuralKit, the session is `@MainActor`, so a UI reads `status` and calls `startTranscribing()`
/// synchronously, and code written for AuralKit compiles unchanged. It never computes there: the model runs on a
/// thread of its own and capture on libpulse's threads, so a command-line program or server whose main actor is only
/// its `async main` loses nothing by it (the main actor exists without a run loop under `async main`).
@MainActor
public final class SpeechSession {
    /// Priority, model retention and preheating (AuralKit names it `SpeechSession.AnalyzerConfiguration`).
    public typealias AnalyzerConfiguration = AuralKit.AnalyzerConfiguration
    /// How long a loaded model is kept (AuralKit's `SpeechSession.AnalyzerModelRetention`).
    public typealias AnalyzerModelRetention = AuralKit.AnalyzerModelRetention
    /// Where audio comes from (AuralKit's `SpeechSession.InputProviderPreference`).
    public typealias InputProviderPreference = AuralKit.InputProviderPreference
    /// Logging levels (AuralKit's `SpeechSession.LogLevel`).
    public typealias LogLevel = AuralKit.LogLevel

    /// Lifecycle states, in the order a session goes through them.
    public enum Status: Equatable, Sendable {
        /// Not transcribing; `startTranscribing()` may be called.
        case idle
        /// Finding, installing or loading the model and opening the audio input.
        case preparing
        /// Capturing and transcribing.
        case transcribing
        /// Capture stopped by `pauseTranscribing()`; the model stays loaded.
        case paused
        /// Delivering the last results after `stopTranscribing()`.
        case stopping
    }

    /// The reporting options AuralKit uses when no preset is given: volatile results and alternatives.
    public static let defaultReportingOptions: Set<SpeechTranscriber.ReportingOption> = [.volatileResults, .alternativeTranscriptions]
    /// The attribute options AuralKit uses when no preset is given: word times and confidences.
    public static let defaultAttributeOptions: Set<SpeechTranscriber.ResultAttributeOption> = [.audioTimeRange, .transcriptionConfidence]
    /// How much sessions log, as in AuralKit. Accepted for source compatibility: the session writes no log lines
    /// yet, whatever the level; errors reach the caller through the result stream.
    public nonisolated(unsafe) static var logging: LogLevel = .off

    /// The language to transcribe.
    public let locale: Locale
    /// The preset that chose the options, if one was given.
    public let preset: SpeechTranscriber.Preset?
    /// Whether volatile results, alternatives and fast results are reported.
    public let reportingOptions: Set<SpeechTranscriber.ReportingOption>
    /// Which attributes the runs of a result's text carry.
    public let attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>
    /// Text transformations (etiquette replacements).
    public let transcriptionOptions: Set<SpeechTranscriber.TranscriptionOption>
    /// Task priority, model retention and preheating.
    public let analyzerConfiguration: AnalyzerConfiguration
    /// Where models are found and installed.
    public let modelManager: ModelManager
    /// A model to use instead of the one chosen for the locale: an installed model's name or a model folder's path.
    public let modelName: String?

    /// When live words become final: LocalAgreement-2 (the default) or by alignment. Applies at the next start.
    public var streamingPolicy: StreamingPolicy = .localAgreement

    /// The current state; `statusStream` reports each change.
    public internal(set) var status: Status = .idle {
        didSet { if status != oldValue { statusBroadcaster.yield(status) } }
    }

    /// Voice activation's detector results, when `configureVoiceActivation(detectionOptions:reportResults:)` asked for
    /// them (nil otherwise). The stream lasts until voice activation is disabled and serves every run until then.
    public internal(set) var speechDetectorResultsStream: AsyncStream<SpeechDetector.Result>?
    /// Whether the detector hears speech now; true whenever voice activation is off.
    public internal(set) var isSpeechDetected = true

    let statusBroadcaster = Broadcaster<Status>(initial: .idle)
    /// The configured voice activation (each run gets a detector module of these options), and the continuation of
    /// its results stream.
    var speechDetector: SpeechDetector?
    var detectorResults: AsyncStream<SpeechDetector.Result>.Continuation?
    var downloadProgress: Progress?
    var current: SessionRun?

    /// A session for `locale`. `preset`, when given, sets the three option sets; otherwise `reportingOptions` and
    /// `attributeOptions` apply (AuralKit's defaults: volatile results and alternatives; word times and confidences).
    ///
    /// - Parameters:
    ///   - inputProviderPreference: accepted for source compatibility; both values capture through PulseAudio.
    ///   - modelManager: where models are found and installed (`ModelManager.shared` by default).
    ///   - model: a model name or folder to use instead of the locale's default.
    public init(
        locale: Locale = .current,
        preset: SpeechTranscriber.Preset? = nil,
        reportingOptions: Set<SpeechTranscriber.ReportingOption> = defaultReportingOptions,
        attributeOptions: Set<SpeechTranscriber.ResultAttributeOption> = defaultAttributeOptions,
        inputProviderPreference: InputProviderPreference = .automatic,
        analyzerConfiguration: AnalyzerConfiguration = .default,
        modelManager: ModelManager = .shared,
        model: String? = nil
    ) {
        self.locale = locale
        self.preset = preset
        self.reportingOptions = preset?.reportingOptions ?? reportingOptions
        self.attributeOptions = preset?.attributeOptions ?? attributeOptions
        self.transcriptionOptions = preset?.transcriptionOptions ?? []
        self.analyzerConfiguration = analyzerConfiguration
        self.modelManager = modelManager
        self.modelName = model
    }

    /// Every status change, starting with the current status. Any number of tasks may listen.
    public var statusStream: AsyncStream<Status> { statusBroadcaster.stream(current: status) }

    /// The model download in progress while the session prepares, else nil.
    public var modelDownloadProgress: Progress? {
        get async { downloadProgress }
    }

    /// The default input device, first as it is now, then at every change (nil when no input exists or no sound
    /// server answers). Each call starts its own subscription.
    public var audioInputConfigurationStream: AsyncStream<AudioInputInfo?> {
        AsyncStream { continuation in
            let monitor = DeviceMonitor()
            let task = Task.detached {
                do {
                    // startMonitoring connects on a thread of its own: a slow sound server holds no cooperative thread.
                    for try await info in try await monitor.startMonitoring() { continuation.yield(info) }
                } catch {
                    continuation.yield(nil)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                monitor.stop()
                task.cancel()
            }
        }
    }

    /// What this machine supports: locales, installed models, the engine's CPU path.
    public nonisolated static func deviceCapabilities() async -> DeviceCapabilities {
        await ModelManager.shared.deviceCapabilities()
    }

    // MARK: - Starting

    /// Transcribes the default input (microphone), following a change of the default input. Returns at once; the
    /// stream yields results until `stopTranscribing()` (after the last words are flushed) or an error.
    /// - Parameter contextualStrings: words and names to expect (they prompt the decoder).
    public func startTranscribing(
        contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]? = nil
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        start(source: { PulseMicrophoneSource() }, contextualStrings: contextualStrings)
    }

    /// `startTranscribing(contextualStrings:)` with the strings under `.general`.
    public func startTranscribing(contextualStrings: [String]) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        startTranscribing(contextualStrings: [.general: contextualStrings])
    }

    /// Transcribes any audio source (a named microphone, a file played in real time, buffers in a test); its buffers
    /// are converted to 16 kHz mono. Pausing stops the source; resuming calls `start()` on it again.
    public func startTranscribing(
        from source: any AudioSource, contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]? = nil
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        start(source: { source }, contextualStrings: contextualStrings)
    }

    /// The earlier name of `startTranscribingScreenCapture(options:contextualStrings:)` (AuralKit's name, in
    /// SpeechSession+ScreenCapture.swift), kept for existing callers: it calls that method, with the strings under
    /// `.general`.
    public func startTranscribingSystemAudio(
        options: SystemAudioTranscriptionOptions = SystemAudioTranscriptionOptions(),
        contextualStrings: [String]? = nil
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        startTranscribingScreenCapture(options: options, contextualStrings: contextualStrings.map { [.general: $0] })
    }

    // MARK: - Control

    /// Stops capture, delivers the results of the audio already captured as final, and ends the stream; returns
    /// once it has ended. Safe to call when idle.
    public func stopTranscribing() async {
        guard let run = current else { return }
        if status != .stopping { status = .stopping }
        run.requestStop()
        await run.task?.value
    }

    /// Stops capture and delivers what was said as final; the model stays loaded and the stream open. Only from
    /// `.transcribing`, and not during a file transcription (which has no capture to pause: it returns at once).
    public func pauseTranscribing() async {
        guard status == .transcribing, let run = current, !run.isFile else { return }
        await run.pause()
        if current === run, status == .transcribing { status = .paused }
    }

    /// Starts capture again on the same stream; times continue from where they were. Only from `.paused`.
    /// - Throws: the `SpeechSessionError` that ended the session when capture cannot restart (the stream ends with
    ///   it too).
    public func resumeTranscribing() async throws {
        guard status == .paused, let run = current else { return }
        try await run.resume()
        if current === run, status == .paused { status = .transcribing }
    }

    // MARK: - The run

    private func start(
        source makeSource: @escaping @Sendable () -> any AudioSource,
        contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]?
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        begin(source: makeSource) { [self] run in await live(run, contextualStrings: contextualStrings ?? [:]) }
    }

    /// Starts a run that `body` drives, and returns its stream; when a run is already going, the new stream fails
    /// with `recognitionStreamSetupFailed` and the running one goes on. Cancelling the consumer cancels the run.
    func begin(
        source makeSource: @escaping @Sendable () -> any AudioSource, isFile: Bool = false,
        _ body: @escaping @MainActor (SessionRun) async -> Void
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        let (stream, continuation) = AsyncThrowingStream<SpeechTranscriber.Result, Error>.makeStream()
        guard current == nil, status == .idle else {
            continuation.finish(throwing: SpeechSessionError.recognitionStreamSetupFailed)
            return stream
        }
        status = .preparing
        let run = SessionRun(continuation: continuation, isFile: isFile, makeSource: makeSource)
        current = run
        continuation.onTermination = { [weak run] termination in
            guard case .cancelled = termination, let run else { return }
            run.cancel()
        }
        run.task = Task(priority: analyzerConfiguration.priority) { await body(run) }
        return stream
    }

    /// A live run: the analyzer with its modules, the results forwarded to the run's stream, capture until the stop,
    /// then the analyzer finalized and finished.
    private func live(_ run: SessionRun, contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]) async {
        do {
            try await installModelIfNeeded()
            let transcriber = makeTranscriber()
            let detector = speechDetector.map { SpeechDetector(detectionOptions: $0.detectionOptions, reportResults: true) }
            let analyzer = try await makeAnalyzer([transcriber] + (detector.map { [$0] } ?? []), contextualStrings: contextualStrings)
            isSpeechDetected = detector == nil
            if let detector { forwardDetection(of: detector, for: run) }
            try await analyze(with: analyzer, transcriber: transcriber, for: run) {
                try await analyzer.prepareToAnalyze(in: nil)
                try await run.capture(into: analyzer, onStarted: { [weak self] in
                    guard let self, self.current === run, self.status == .preparing || self.status == .paused else { return }
                    self.status = .transcribing
                })
            }
            await end(run, failure: nil)
        } catch {
            await end(run, failure: SpeechSessionError.from(error, locale: locale))
        }
    }

    /// A run's analyzer: `modules`, with the session's priority and model retention, and `contextualStrings` as its
    /// context.
    func makeAnalyzer(
        _ modules: [any SpeechModule], contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]
    ) async throws -> SpeechAnalyzer {
        let analyzer = SpeechAnalyzer(
            modules: modules,
            options: .init(priority: analyzerConfiguration.priority, modelRetention: analyzerConfiguration.modelRetention))
        let context = AnalysisContext()
        context.contextualStrings = contextualStrings
        try await analyzer.setContext(context)
        return analyzer
    }

    /// Forwards `transcriber`'s results to the run's stream while `input` hands the analyzer its audio, then
    /// finalizes and finishes the analyzer (cancels it when `input` throws) and returns once every result is
    /// forwarded.
    func analyze(
        with analyzer: SpeechAnalyzer, transcriber: SpeechTranscriber, for run: SessionRun, _ input: () async throws -> Void
    ) async throws {
        let forwarding = Task { for try await result in transcriber.results { run.continuation.yield(result) } }
        do {
            try await input()
            try await analyzer.finalizeAndFinishThroughEndOfInput()
        } catch {
            await analyzer.cancelAndFinishNow()
            _ = try? await forwarding.value
            throw error
        }
        try await forwarding.value
    }

    /// The run's transcriber module: the session's options on the session's model manager, model and compute type.
    func makeTranscriber() -> SpeechTranscriber {
        SpeechTranscriber(
            locale: locale, transcriptionOptions: transcriptionOptions, reportingOptions: reportingOptions,
            attributeOptions: attributeOptions,
            engine: TranscriberEngine(
                modelName: modelName, computeType: analyzerConfiguration.computeType, modelManager: modelManager,
                retention: analyzerConfiguration.modelRetention.modelRetention, policy: streamingPolicy))
    }

    /// Installs the locale's model when it is missing, with `modelDownloadProgress` set meanwhile (a model given by
    /// name or folder is used as it is).
    /// - Throws: `SpeechSessionError.unsupportedLocale`, or why the download failed.
    func installModelIfNeeded() async throws {
        guard ModelCatalog.whisperLanguage(for: locale) != nil else { throw SpeechSessionError.unsupportedLocale(locale) }
        guard modelName == nil else { return }
        let name = try await modelManager.model(for: locale).name
        if let request = try await modelManager.installationRequest(for: name) {
            downloadProgress = request.progress
            defer { downloadProgress = nil }
            try await request.downloadAndInstall()
        }
    }

    /// Ends a run: the session returns to `.idle` (unless another run has begun), then the stream ends, with
    /// `failure` when given, so a consumer that sees the end finds the session idle.
    func end(_ run: SessionRun, failure: SpeechSessionError?) async {
        if current === run {
            current = nil
            status = .idle
            isSpeechDetected = true
        }
        if let failure { run.continuation.finish(throwing: failure) } else { run.continuation.finish() }
    }
}
