import AVFoundation
import AuralWhisper
import CoreMedia
import Foundation

/// Speech to text as a module of a `SpeechAnalyzer`, as in Apple's Speech framework: the locale's Whisper model
/// transcribes the analyzer's audio, and `results` delivers phrases, volatile while they grow (with the reporting
/// option `.volatileResults`), then final.
///
/// ```swift
/// let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .progressiveTranscription)
/// let analyzer = SpeechAnalyzer(modules: [transcriber])
/// ```
///
/// A final result covers a phrase: the transcriber finalizes at the end of a sentence, at a pause, when the phrase
/// grows long, and when the analyzer finalizes (`finalize(through:)`, the finish methods). Live words become part of
/// the phrase once two consecutive decodes agree on them, so volatile text does not flicker (`docs/streaming.md`).
/// A file given to the analyzer (`start(inputAudioFile:finishAfterFile:)`) is transcribed by the offline engine,
/// segment by segment, with its accuracy.
///
/// Differences from Apple: the model is Whisper's (`ModelManager` picks it for the locale; `AssetInventory`
/// installs it); the module's `results` can be read by one task at a time.
public final class SpeechTranscriber: LocaleDependentSpeechModule, Sendable {
    /// The options the transcriber was created with.
    public let transcriptionOptions: Set<TranscriptionOption>
    /// What the transcriber reports, and when.
    public let reportingOptions: Set<ReportingOption>
    /// The attributes each result's text carries.
    public let attributeOptions: Set<ResultAttributeOption>
    /// The transcriber's results, in order. Ends when the analyzer finishes, and throws the analysis' error.
    public let results: AsyncThrowingStream<Result, any Error>
    let resultsContinuation: AsyncThrowingStream<Result, any Error>.Continuation
    /// What the engine needs.
    package let settings: TranscriberSettings

    /// A transcriber of `locale` configured by `preset`.
    public convenience init(locale: Locale, preset: Preset) {
        self.init(
            locale: locale, transcriptionOptions: preset.transcriptionOptions, reportingOptions: preset.reportingOptions,
            attributeOptions: preset.attributeOptions)
    }

    /// A transcriber of `locale` with these options.
    public convenience init(
        locale: Locale, transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
        attributeOptions: Set<ResultAttributeOption>
    ) {
        self.init(
            locale: locale, transcriptionOptions: transcriptionOptions, reportingOptions: reportingOptions,
            attributeOptions: attributeOptions, engine: TranscriberEngine())
    }

    /// A transcriber that runs on `engine` (a model, compute type or model manager of the caller's choice).
    package init(
        locale: Locale, transcriptionOptions: Set<TranscriptionOption>, reportingOptions: Set<ReportingOption>,
        attributeOptions: Set<ResultAttributeOption>, engine: TranscriberEngine
    ) {
        self.transcriptionOptions = transcriptionOptions
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        settings = TranscriberSettings(
            locale: locale, reportingOptions: reportingOptions, attributeOptions: attributeOptions,
            etiquette: transcriptionOptions.contains(.etiquetteReplacements), engine: engine)
        (results, resultsContinuation) = AsyncThrowingStream<Result, any Error>.makeStream()
    }

    /// The locale the transcriber was created with.
    public var selectedLocales: [Locale] { [settings.locale] }

    /// The formats the transcriber takes: 16 kHz mono float32 once its model is installed, else none. The analyzer
    /// converts any other PCM format to it.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async { await ModelAssets.isInstalled(settings) ? [AnalyzerAudio.format] : [] }
    }

    /// Whether this machine can run the transcriber: always, since the engine runs on any x86-64 or ARM CPU.
    public static var isAvailable: Bool { true }

    /// The languages some installable model transcribes, as bare-language locales (`en`, `de`, …): Whisper models
    /// know languages, not regions.
    public static var supportedLocales: [Locale] {
        get async { ModelAssets.supportedLocales(ModelManager.shared) }
    }

    /// The supported locale of `locale`'s language (`en` for `en_GB`), or nil when no model transcribes it.
    public static func supportedLocale(equivalentTo locale: Locale) async -> Locale? {
        ModelManager.shared.catalog.supportedLocale(equivalentTo: locale)
    }

    /// The languages an installed model transcribes.
    public static var installedLocales: [Locale] {
        get async { await ModelAssets.installedLocales(ModelManager.shared) }
    }
}

extension SpeechTranscriber: TranscribingModule {
    func deliver(_ result: Result) { resultsContinuation.yield(result) }
    func finishResults(throwing error: (any Error)?) { resultsContinuation.finish(throwing: error) }
}
