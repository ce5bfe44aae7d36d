import AuralVAD
import AuralWhisper
import CoreMedia
import Foundation
import Synchronization

/// The live analysis of one analyzer: for each transcriber module a `StreamingTranscription` on an inference thread
/// of its own (with the detector's voice activation in front, when the analyzer has a `SpeechDetector`), or the
/// detector alone. Audio goes in as 16 kHz mono samples; results go out to the modules from the inference threads.
final class AnalysisPipeline: Sendable {
    /// The most audio, in seconds, that may wait for a decode before `append` waits: input faster than real time is
    /// taken at the pace of the analysis.
    static let maximumPendingSeconds = 2.0

    private let workers: [InferenceThread]
    private let models: [LoadedTranscriberModel]

    private init(workers: [InferenceThread], models: [LoadedTranscriberModel]) {
        self.workers = workers
        self.models = models
    }

    /// Loads the modules' models and starts their threads.
    /// - Parameters:
    ///   - context: its contextual strings prompt the decoder.
    ///   - retention: how long the models stay loaded afterwards (the analyzer's options), nil for the modules' own.
    ///   - onFinalized: called on an inference thread when the time up to which every module's results are final
    ///     moves on.
    static func start(
        _ modules: ModuleSet, context: AnalysisContext, retention: ModelRetention?,
        onFinalized: @escaping @Sendable (CMTime) -> Void
    ) async throws -> AnalysisPipeline {
        var models: [LoadedTranscriberModel] = []
        var admitted = 0
        do {
            for transcriber in modules.transcribers { models.append(try await ModelAssets.load(transcriber.settings, retention: retention)) }
            let vad = try modules.detector.map { _ in try loadVoiceActivityModel(modules) }
            let prompt = AnalysisContext.initialPrompt(from: context.contextualStrings)
            let finalized = FinalizationTimes(count: models.count)
            // Each transcription counts in the machine's live load, which refuses it when full (before any thread starts).
            for _ in models {
                try LiveLoad.shared.admit()
                admitted += 1
            }
            var workers: [InferenceThread] = []
            for (index, (transcriber, loaded)) in zip(modules.transcribers, models).enumerated() {
                let delivery = ResultDelivery(
                    assembler: ResultAssembler(
                        reportingOptions: transcriber.settings.reportingOptions,
                        attributeOptions: transcriber.settings.attributeOptions, etiquette: transcriber.settings.etiquette),
                    sink: { [transcriber] in transcriber.deliver($0) })
                let configuration = StreamingTranscription.Configuration.live(
                    language: loaded.language, contextPrompt: prompt, policy: transcriber.settings.engine.policy)
                let transcription = StreamingTranscription(
                    decoder: WindowDecoder(model: loaded.model), language: loaded.language, configuration: configuration)
                var gate: VoiceActivityGate?
                var spans: @Sendable ([VoiceActivityGate.Span]) -> Void = { _ in }
                if let detector = modules.detector, let vad {
                    gate = VoiceActivityGate(vad: vad, options: detector.detectionOptions)
                    if index == 0 { spans = detectionReporter(detector) }
                }
                let deliver: @Sendable (StreamingTranscription.Update) -> Void = { update in
                    if let earliest = finalized.set(delivery.deliver(update), at: index) { onFinalized(earliest) }
                }
                workers.append(InferenceThread(
                    transcription: transcription, cadence: StreamingTranscription.Configuration.cadenceSeconds,
                    load: .shared, gate: gate, reportSpans: spans, deliver: deliver))
            }
            if workers.isEmpty, let detector = modules.detector, let vad {
                let gate = VoiceActivityGate(vad: vad, options: detector.detectionOptions)
                workers.append(InferenceThread(
                    transcription: nil, cadence: StreamingTranscription.Configuration.cadenceSeconds, gate: gate,
                    reportSpans: detectionReporter(detector), deliver: { _ in }))
            }
            return AnalysisPipeline(workers: workers, models: models)
        } catch {
            for _ in 0..<admitted { LiveLoad.shared.leave() }
            for model in models { await model.release() }
            throw error
        }
    }

    /// Adds 16 kHz mono samples that follow the previous ones; waits while the analysis is more than
    /// `maximumPendingSeconds` behind.
    func append(_ samples: [Float]) async {
        for worker in workers { await worker.appendWaiting(samples, maximumPendingSeconds: Self.maximumPendingSeconds) }
    }

    /// Decodes everything received and makes it final; returns once the results are delivered.
    func flush() async {
        for worker in workers { await worker.flush() }
    }

    /// Flushes and ends the threads, then gives the models back. Throws the error a decode hit.
    func finish() async throws {
        var failure: (any Error)?
        for worker in workers {
            do { try await worker.finish() } catch { failure = failure ?? error }
        }
        await release()
        if let failure { throw failure }
    }

    /// Ends the threads after their current decode, delivering nothing more, and gives the models back.
    func cancel() async {
        for worker in workers { worker.cancel() }
        await release()
    }

    private func release() async {
        for model in models { await model.release() }
    }

    /// Silero VAD from the first transcriber's model manager (the shared one with no transcriber).
    private static func loadVoiceActivityModel(_ modules: ModuleSet) throws -> SileroVAD {
        let manager = modules.transcribers.first?.settings.engine.modelManager ?? .shared
        return try SileroVAD(contentsOf: manager.voiceActivityModelURL)
    }

    /// What the inference thread calls with the detector's spans: they become the detector's results, when it
    /// reports them.
    private static func detectionReporter(_ detector: SpeechDetector) -> @Sendable ([VoiceActivityGate.Span]) -> Void {
        { spans in
            detector.noteSpans(spans)
            guard detector.reportResults else { return }
            for span in spans {
                let range = CMTimeRange(start: CMTime(sample: span.range.lowerBound), end: CMTime(sample: span.range.upperBound))
                let settled = CMTime(sample: span.isFinished ? span.range.upperBound : span.range.lowerBound)
                detector.resultsContinuation.yield(
                    SpeechDetector.Result(range: range, resultsFinalizationTime: settled, speechDetected: span.isSpeech))
            }
        }
    }
}

/// Where each transcriber's results are final; the analysis' results are final up to the earliest.
private final class FinalizationTimes: Sendable {
    private let times: Mutex<[CMTime]>

    init(count: Int) { times = Mutex([CMTime](repeating: .zero, count: count)) }

    /// Records transcriber `index`'s time; returns the earliest when that moved.
    func set(_ time: CMTime, at index: Int) -> CMTime? {
        times.withLock { times in
            let before = times.min()
            times[index] = time
            let after = times.min()
            return after != before ? after : nil
        }
    }
}
