import AVFoundation
import CoreMedia
import Foundation

/// Speech to text with the options of Apple's dictation, as its `DictationTranscriber`: the same Whisper engine as
/// `SpeechTranscriber`, configured by content hints and dictation's reporting options.
///
/// Whisper always punctuates, so `.punctuation` is always on in effect; `.emoji` is accepted and writes no emoji;
/// content hints are accepted and change nothing (Whisper has one model for near and far speech).
/// `.frequentFinalization` and `.shortForm` finalize phrases as `SpeechTranscriber` does.
public final class DictationTranscriber: LocaleDependentSpeechModule, Sendable {
    /// Expected characteristics of the speech.
    public let contentHints: Set<ContentHint>
    /// How the text is written.
    public let transcriptionOptions: Set<TranscriptionOption>
    /// What the transcriber reports, and when.
    public let reportingOptions: Set<ReportingOption>
    /// The attributes each result's text carries.
    public let attributeOptions: Set<ResultAttributeOption>
    /// The transcriber's results, in order. Ends when the analyzer finishes.
    public let results: AsyncThrowingStream<Result, any Error>
    private let resultsContinuation: AsyncThrowingStream<Result, any Error>.Continuation
    /// What the engine needs.
    package let settings: TranscriberSettings

    /// A transcriber of `locale` configured by `preset`.
    public convenience init(locale: Locale, preset: Preset) {
        self.init(
            locale: locale, contentHints: preset.contentHints, transcriptionOptions: preset.transcriptionOptions,
            reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions)
    }

    /// A transcriber of `locale` with these options.
    public init(
        locale: Locale, contentHints: Set<ContentHint>, transcriptionOptions: Set<TranscriptionOption>,
        reportingOptions: Set<ReportingOption>, attributeOptions: Set<ResultAttributeOption>
    ) {
        self.contentHints = contentHints
        self.transcriptionOptions = transcriptionOptions
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        var reporting: Set<SpeechTranscriber.ReportingOption> = []
        if reportingOptions.contains(.volatileResults) { reporting.insert(.volatileResults) }
        if reportingOptions.contains(.alternativeTranscriptions) { reporting.insert(.alternativeTranscriptions) }
        var attributes: Set<SpeechTranscriber.ResultAttributeOption> = []
        if attributeOptions.contains(.audioTimeRange) { attributes.insert(.audioTimeRange) }
        if attributeOptions.contains(.transcriptionConfidence) { attributes.insert(.transcriptionConfidence) }
        settings = TranscriberSettings(
            locale: locale, reportingOptions: reporting, attributeOptions: attributes,
            etiquette: transcriptionOptions.contains(.etiquetteReplacements), engine: TranscriberEngine())
        (results, resultsContinuation) = AsyncThrowingStream<Result, any Error>.makeStream()
    }

    /// The locale the transcriber was created with.
    public var selectedLocales: [Locale] { [settings.locale] }

    /// 16 kHz mono float32 once the model is installed, else none.
    public var availableCompatibleAudioFormats: [AVAudioFormat] {
        get async { await ModelAssets.isInstalled(settings) ? [AnalyzerAudio.format] : [] }
    }

    /// The languages some installable model transcribes (see `SpeechTranscriber.supportedLocales`).
    public static var supportedLocales: [Locale] {
        get async { await SpeechTranscriber.supportedLocales }
    }

    /// The supported locale of `locale`'s language, or nil.
    public static func supportedLocale(equivalentTo locale: Locale) async -> Locale? {
        await SpeechTranscriber.supportedLocale(equivalentTo: locale)
    }

    /// The languages an installed model transcribes.
    public static var installedLocales: [Locale] {
        get async { await SpeechTranscriber.installedLocales }
    }

    /// A phrase of transcribed speech, as `SpeechTranscriber.Result`.
    public struct Result: SpeechModuleResult, Sendable, CustomStringConvertible, Equatable, Hashable {
        /// The most likely transcription: `alternatives[0]`.
        public var text: AttributedString { alternatives[0] }
        /// The transcriptions, most likely first; never empty.
        public let alternatives: [AttributedString]
        /// The span of the input's audio the result covers.
        public let range: CMTimeRange
        /// The transcriber's results are final before this time.
        public let resultsFinalizationTime: CMTime

        /// `"final [0.5 s, 1.5 s): Hello world."`, with "volatile" for a volatile result.
        public var description: String {
            "\(isFinal ? "final" : "volatile") \(range): \(String(text.characters))"
        }
    }

    /// Named sets of options, as Apple's dictation presets.
    public struct Preset: Sendable, Equatable, Hashable {
        /// Expected characteristics of the speech.
        public var contentHints: Set<ContentHint>
        /// How the text is written.
        public var transcriptionOptions: Set<TranscriptionOption>
        /// What the transcriber reports, and when.
        public var reportingOptions: Set<ReportingOption>
        /// The attributes each result's text carries.
        public var attributeOptions: Set<ResultAttributeOption>

        /// A preset of these options.
        public init(
            contentHints: Set<ContentHint>, transcriptionOptions: Set<TranscriptionOption>,
            reportingOptions: Set<ReportingOption>, attributeOptions: Set<ResultAttributeOption>
        ) {
            self.contentHints = contentHints
            self.transcriptionOptions = transcriptionOptions
            self.reportingOptions = reportingOptions
            self.attributeOptions = attributeOptions
        }

        /// A short phrase, final only.
        public static let phrase = Preset(contentHints: [.shortForm], transcriptionOptions: [], reportingOptions: [], attributeOptions: [])
        /// Short dictation, punctuated, final only.
        public static let shortDictation = Preset(
            contentHints: [.shortForm], transcriptionOptions: [.punctuation], reportingOptions: [], attributeOptions: [])
        /// Short dictation with volatile results, finalized often.
        public static let progressiveShortDictation = Preset(
            contentHints: [.shortForm], transcriptionOptions: [.punctuation],
            reportingOptions: [.volatileResults, .frequentFinalization], attributeOptions: [])
        /// Long dictation, punctuated, final only.
        public static let longDictation = Preset(
            contentHints: [], transcriptionOptions: [.punctuation], reportingOptions: [], attributeOptions: [])
        /// Long dictation with volatile results.
        public static let progressiveLongDictation = Preset(
            contentHints: [], transcriptionOptions: [.punctuation], reportingOptions: [.volatileResults], attributeOptions: [])
        /// Long dictation with word times.
        public static let timeIndexedLongDictation = Preset(
            contentHints: [], transcriptionOptions: [.punctuation], reportingOptions: [], attributeOptions: [.audioTimeRange])
    }

    /// Expected characteristics of the speech; accepted, with no effect on Whisper.
    public struct ContentHint: Sendable, Equatable, Hashable {
        private let name: String
        /// Short utterances.
        public static let shortForm = ContentHint(name: "shortForm")
        /// Distant speech.
        public static let farField = ContentHint(name: "farField")
        /// Atypical speech.
        public static let atypicalSpeech = ContentHint(name: "atypicalSpeech")
    }

    /// How the text is written.
    public enum TranscriptionOption: CaseIterable, Sendable, Equatable, Hashable {
        /// Punctuation (Whisper always punctuates).
        case punctuation
        /// Emoji for spoken emoji names (accepted; none are written).
        case emoji
        /// Expletives masked with asterisks.
        case etiquetteReplacements
    }

    /// What the transcriber reports, and when.
    public enum ReportingOption: CaseIterable, Sendable, Equatable, Hashable {
        /// Volatile results as the audio comes in.
        case volatileResults
        /// Alternative transcriptions.
        case alternativeTranscriptions
        /// Finalize often (phrases are final at each sentence end and pause, as always here).
        case frequentFinalization
    }

    /// The attributes each result's text carries.
    public enum ResultAttributeOption: CaseIterable, Sendable, Equatable, Hashable {
        /// Each word's audio time range.
        case audioTimeRange
        /// Each word's confidence.
        case transcriptionConfidence
    }
}

extension DictationTranscriber: TranscribingModule {
    func deliver(_ result: SpeechTranscriber.Result) {
        resultsContinuation.yield(Result(
            alternatives: result.alternatives, range: result.range, resultsFinalizationTime: result.resultsFinalizationTime))
    }

    func finishResults(throwing error: (any Error)?) { resultsContinuation.finish(throwing: error) }
}
