import AuralWhisper
import Foundation
import Speech

/// How a session's or a transcription's model computes: float32, int8, or the faster of the two on this machine
/// (`AuralWhisper.ComputeType`, named here so that `import AuralKit` is enough).
public typealias ComputeType = AuralWhisper.ComputeType

/// How the session schedules the engine and keeps its model, like AuralKit's `AnalyzerConfiguration` (which maps to
/// Apple's `SpeechAnalyzer.Options` and `prepareToAnalyze`).
public struct AnalyzerConfiguration: Equatable, Sendable {
    /// The priority of the task that decodes audio. Default `.userInitiated`.
    public var priority: TaskPriority
    /// How long the loaded model stays in memory once the session stops. Default `.lingering`.
    public var modelRetention: AnalyzerModelRetention
    /// Whether `startTranscribing` loads the model and runs one warm-up decode before capture starts, so the first
    /// result does not wait for the load. Default `true`.
    /// - Note: with `true`, the session stays `.preparing` for the load (about a second for small models) but the
    ///   first audio is decoded at once; with `false`, capture starts sooner and the first result comes later.
    public var preparesAnalyzerBeforeStart: Bool
    /// How the model computes: `.auto` (the default: int8 where oneDNN opens, else float32), `.float32` (the same
    /// text as `aural transcribe` with its default), or `.int8` (quantized: cheaper updates and a quarter of the weight
    /// memory; a word or two may differ from float32). A Linux addition; see `ComputeType`.
    /// - Note: the default is `.auto` because live results wait on each update's compute: in real time on the bundled
    ///   recordings int8 brought a word's first appearance from 0.59 s to 0.43–0.50 s (docs/streaming.md), and on the
    ///   evaluation set int8's WER is no worse than float32's (docs/engine.md).
    public var computeType: ComputeType

    /// A configuration; every argument has the default documented on its property.
    public init(
        priority: TaskPriority = .userInitiated, modelRetention: AnalyzerModelRetention = .lingering,
        preparesAnalyzerBeforeStart: Bool = true, computeType: ComputeType = .auto
    ) {
        self.priority = priority
        self.modelRetention = modelRetention
        self.preparesAnalyzerBeforeStart = preparesAnalyzerBeforeStart
        self.computeType = computeType
    }

    /// `.userInitiated`, `.lingering`, prepared before start, `.auto` compute type.
    public static let `default` = AnalyzerConfiguration()
}

/// How long the session's model stays loaded once no session uses it: `.whileInUse`, `.lingering` (60 s after the last
/// session stops) or `.processLifetime`. The analyzer's retention itself, so that a session and a `SpeechAnalyzer`
/// read the setting from one place.
public typealias AnalyzerModelRetention = SpeechAnalyzer.Options.ModelRetention
