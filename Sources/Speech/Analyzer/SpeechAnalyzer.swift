import AVFoundation
import AuralAudio
import CoreMedia
import Foundation

/// Analyses spoken audio with modules, as in Apple's Speech framework: it takes `AnalyzerInput` from a sequence you
/// fill (or an `AVAudioFile`), hands the audio to its modules (`SpeechTranscriber`, `DictationTranscriber`,
/// `SpeechDetector`), and controls the session: finalize, finish, cancel.
///
/// ```swift
/// let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .progressiveTranscription)
/// let analyzer = SpeechAnalyzer(modules: [transcriber])
/// let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)
/// try await analyzer.start(inputSequence: inputSequence)
/// // feed inputBuilder.yield(AnalyzerInput(buffer: pcmBuffer)), read transcriber.results
/// inputBuilder.finish()
/// try await analyzer.finalizeAndFinishThroughEndOfInput()
/// ```
///
/// The decoding runs on threads of its own, never on Swift's cooperative pool. Input faster than real time (a file
/// read into buffers) is taken at the pace of the analysis. Times in results count the input's audio from zero, gaps
/// given by `bufferStartTime` included.
///
/// Differences from Apple: the analyzer converts any linear PCM input itself; `cancelAnalysis(before:)` only
/// records the time (audio already taken is analysed); `finish(after:)` finalizes the audio it finishes after; an
/// analysis with a detector and two transcribers runs the detector once per transcriber.
public actor SpeechAnalyzer {
    /// The modules analysing the audio.
    public private(set) var modules: [any SpeechModule]
    /// The contextual information the analysis uses (its contextual strings prompt the transcribers).
    public var context: AnalysisContext { contextValue }

    let options: Options?
    var contextValue: AnalysisContext
    /// The live analysis, started at the first input or by `prepareToAnalyze(in:)`.
    var pipeline: Task<AnalysisPipeline, any Error>?
    /// Counts `start(inputSequence:)` calls, so that an input task that ends knows whether it is still current.
    var inputGeneration = 0
    /// The task consuming an input sequence autonomously (`start(inputSequence:)`).
    var inputTask: Task<Void, Never>?
    /// 16 kHz samples of the input's timeline taken so far.
    var consumedSamples = 0
    /// Where every module's results are final.
    var finalizedThrough = CMTime.zero
    var volatileRangeHandler: (@Sendable (CMTimeRange, Bool, Bool) -> Void)?
    var converter = BufferConverter()
    /// Set once the session is finished; with the error that finished it, if any.
    var isFinished = false
    var failure: (any Error)?

    /// An analyzer with these modules (the list may be empty; `setModules(_:)` changes it).
    public init(modules: [any SpeechModule], options: Options? = nil) {
        self.modules = modules
        self.options = options
        self.contextValue = AnalysisContext()
    }

    /// An analyzer that starts analysing `inputSequence` at once (see `start(inputSequence:)`).
    public init<InputSequence: AsyncSequence & Sendable>(
        inputSequence: InputSequence, modules: [any SpeechModule], options: Options? = nil,
        analysisContext: AnalysisContext = .init(),
        volatileRangeChangedHandler: sending ((_ range: CMTimeRange, _ changedStart: Bool, _ changedEnd: Bool) -> Void)? = nil
    ) where InputSequence.Element == AnalyzerInput {
        self.modules = modules
        self.options = options
        self.contextValue = analysisContext
        self.volatileRangeHandler = volatileRangeChangedHandler.map(Self.sendable)
        Task { try? await self.start(inputSequence: inputSequence) }
    }

    /// An analyzer that analyses `inputAudioFile` at once (see `start(inputAudioFile:finishAfterFile:)`).
    public init(
        inputAudioFile: AVAudioFile, modules: [any SpeechModule], options: Options? = nil,
        analysisContext: AnalysisContext = .init(), finishAfterFile: Bool = false,
        volatileRangeChangedHandler: sending ((_ range: CMTimeRange, _ changedStart: Bool, _ changedEnd: Bool) -> Void)? = nil
    ) async throws {
        self.modules = modules
        self.options = options
        self.contextValue = analysisContext
        self.volatileRangeHandler = volatileRangeChangedHandler.map(Self.sendable)
        try await start(inputAudioFile: inputAudioFile, finishAfterFile: finishAfterFile)
    }

    /// Replaces the context; it applies to analysis that starts after the change.
    public func setContext(_ newContext: AnalysisContext) async throws {
        contextValue = newContext
    }

    /// Replaces the modules. A module added mid-stream hears only later audio; a module removed has its results
    /// finished. The analysis of earlier audio is finalized first.
    public func setModules(_ newModules: [any SpeechModule]) async throws {
        try checkNotFinished()
        _ = try ModuleSet(newModules)
        if let running = pipeline {
            pipeline = nil
            try await (try await running.value).finish()
        }
        let removed = modules.filter { old in !newModules.contains { $0 === old } }
        ModuleSet.finish(removed, throwing: nil)
        modules = newModules
    }

    /// Loads the modules' models now, so that the first input is analysed without delay. The format is accepted
    /// for compatibility; any input format is converted.
    public func prepareToAnalyze(in audioFormat: AVAudioFormat?) async throws {
        _ = try await runningPipeline()
    }

    /// `prepareToAnalyze(in:)`; `progressReadyHandler` gets a `Progress` that completes when the models are loaded.
    public func prepareToAnalyze(
        in audioFormat: AVAudioFormat?, withProgressReadyHandler progressReadyHandler: sending ((Progress) -> Void)?
    ) async throws {
        let progress = Progress(totalUnitCount: 1)
        progressReadyHandler?(progress)
        try await prepareToAnalyze(in: audioFormat)
        progress.completedUnitCount = 1
    }

    /// The range of the input whose results may still change: from where results are final to the end of the audio
    /// taken; nil before any input and once finished.
    public var volatileRange: CMTimeRange? {
        guard consumedSamples > 0, !isFinished else { return nil }
        return CMTimeRange(start: min(finalizedThrough, consumedTime), end: consumedTime)
    }

    /// Sets the closure called when the volatile range changes: with `changedStart` when results were finalized,
    /// `changedEnd` when more input was taken.
    public func setVolatileRangeChangedHandler(
        _ handler: sending ((_ range: CMTimeRange, _ changedStart: Bool, _ changedEnd: Bool) -> Void)?
    ) {
        volatileRangeHandler = handler.map(Self.sendable)
    }

    /// The end of the input taken so far.
    var consumedTime: CMTime { CMTime(sample: consumedSamples) }

    /// Treats a closure handed over with `sending` as `Sendable`: the analyzer is its only owner.
    static func sendable(_ handler: @escaping (CMTimeRange, Bool, Bool) -> Void) -> @Sendable (CMTimeRange, Bool, Bool) -> Void {
        nonisolated(unsafe) let handler = handler
        return { handler($0, $1, $2) }
    }
}
