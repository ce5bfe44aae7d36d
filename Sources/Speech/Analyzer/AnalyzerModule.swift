import Foundation

/// What the analyzer asks of a transcriber module (`SpeechTranscriber`, `DictationTranscriber`): its settings, and a
/// place for its results.
protocol TranscribingModule: AnyObject, Sendable {
    /// What the engine needs.
    var settings: TranscriberSettings { get }
    /// Publishes a result in the module's `results`.
    func deliver(_ result: SpeechTranscriber.Result)
    /// Ends the module's `results`, with `error` when the analysis failed.
    func finishResults(throwing error: (any Error)?)
}

/// The modules of an analysis, sorted by what the analyzer does with them.
struct ModuleSet: Sendable {
    /// The transcribers, in the order they were given.
    var transcribers: [any TranscribingModule] = []
    /// The voice activity detector, if any (the first one given; any other only ends its results).
    var detector: SpeechDetector?

    /// Sorts `modules`.
    /// - Throws: `SFSpeechError(.insufficientResources)` for a module that is not one of this framework's.
    init(_ modules: [any SpeechModule]) throws {
        for module in modules {
            if let transcriber = module as? any TranscribingModule {
                transcribers.append(transcriber)
            } else if let detector = module as? SpeechDetector {
                if self.detector == nil { self.detector = detector }
            } else {
                throw SFSpeechError(.insufficientResources, detail: "\(type(of: module)) is not a module this framework can run.")
            }
        }
    }

    /// Ends every module's results.
    static func finish(_ modules: [any SpeechModule], throwing error: (any Error)?) {
        for module in modules {
            if let transcriber = module as? any TranscribingModule { transcriber.finishResults(throwing: error) }
            if let detector = module as? SpeechDetector { detector.resultsContinuation.finish(throwing: error) }
        }
    }
}
