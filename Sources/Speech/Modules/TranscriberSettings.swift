import AuralWhisper
import Foundation

/// What a transcriber module asks of the engine: its language, how its results read, and (Linux additions that
/// Apple's API has no place for) the model, its arithmetic and the live policy. `SpeechTranscriber` and
/// `DictationTranscriber` both reduce to it.
package struct TranscriberSettings: Sendable {
    /// The language to transcribe.
    package var locale: Locale
    /// Volatile results, alternatives, fast results (`SpeechTranscriber`'s reporting options).
    package var reportingOptions: Set<SpeechTranscriber.ReportingOption>
    /// Word times and confidences.
    package var attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>
    /// Expletives masked.
    package var etiquette: Bool
    /// How the engine runs.
    package var engine: TranscriberEngine

    package init(
        locale: Locale, reportingOptions: Set<SpeechTranscriber.ReportingOption>,
        attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>, etiquette: Bool, engine: TranscriberEngine
    ) {
        self.locale = locale
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        self.etiquette = etiquette
        self.engine = engine
    }
}

/// The engine behind a transcriber module: which Whisper model, in which arithmetic, kept how long, committing live
/// words by which policy. The defaults are what `SpeechTranscriber(locale:preset:)` uses.
package struct TranscriberEngine: Sendable {
    /// A model name or folder to use instead of the locale's (`ModelManager.model(for:)`).
    package var modelName: String?
    /// float32, int8, or `.auto` (int8 where oneDNN opens): live results wait on each update's compute.
    package var computeType: ComputeType
    /// Where models are found, installed and shared.
    package var modelManager: ModelManager
    /// How long the loaded model stays once no analyzer uses it.
    package var retention: ModelRetention
    /// When live words become final.
    package var policy: StreamingPolicy

    package init(
        modelName: String? = nil, computeType: ComputeType = .auto, modelManager: ModelManager = .shared,
        retention: ModelRetention = .lingering(.seconds(60)), policy: StreamingPolicy = .localAgreement
    ) {
        self.modelName = modelName
        self.computeType = computeType
        self.modelManager = modelManager
        self.retention = retention
        self.policy = policy
    }
}
