import Foundation

/// An error of the Speech framework, as Apple's `SFSpeechError`: a `code`, with a description and a recovery
/// suggestion (`LocalizedError`), bridged to `NSError` in the domain `SFSpeechErrorDomain`.
///
/// Errors of the layers below pass through unchanged: `SpeechModelError` (installing or loading a model),
/// `WhisperModelError` (a damaged model), `AudioSourceError` (a file FFmpeg cannot read).
public struct SFSpeechError: Error, LocalizedError, CustomNSError, Hashable, Sendable {
    /// What went wrong. The raw values are this project's own (Apple's are not published).
    public enum Code: Int, Sendable, Hashable {
        /// The audio input's time-code overlaps or precedes earlier input.
        case audioDisordered = 1
        /// The audio input is in a format the analyzer cannot convert (not linear PCM).
        case unexpectedAudioFormat
        /// No model is installed for the locale and options.
        case noModel
        /// The module's locale is not reserved.
        case assetLocaleNotAllocated
        /// More locales are reserved than `AssetInventory.maximumReservedLocales`.
        case tooManyAssetLocalesAllocated
        /// The modules have no audio format in common.
        case incompatibleAudioFormats
        /// A module failed to produce its results.
        case moduleOutputFailed
        /// No model supports the locale.
        case cannotAllocateUnsupportedLocale
        /// The machine lacks what the request needs (memory, a module this framework cannot run, or cores: the live
        /// analyses running already use every core, see `SpeechAnalyzer`).
        case insufficientResources
    }

    /// What went wrong.
    public let code: Code
    /// The locale concerned, when there is one.
    public let locale: Locale?
    /// The model concerned, when there is one.
    public let model: String?
    /// A detail that explains the failure, when there is one.
    public let detail: String?

    /// An error of `code`, with what it concerns.
    public init(_ code: Code, locale: Locale? = nil, model: String? = nil, detail: String? = nil) {
        self.code = code
        self.locale = locale
        self.model = model
        self.detail = detail
    }

    /// `"SFSpeechErrorDomain"`.
    public static var errorDomain: String { "SFSpeechErrorDomain" }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// The description and the recovery suggestion, for `NSError`.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: errorDescription ?? "", NSLocalizedRecoverySuggestionErrorKey: recoverySuggestion ?? ""]
    }

    /// What happened, in a sentence.
    public var errorDescription: String? {
        let language = locale.map { " \($0.identifier)" } ?? ""
        let base: String = switch code {
        case .audioDisordered: "The audio input's start time overlaps or precedes earlier input."
        case .unexpectedAudioFormat: "The audio input is not linear PCM audio the analyzer can convert."
        case .noModel: "No speech model for\(language) is installed\(model.map { " (\"\($0)\")" } ?? "")."
        case .assetLocaleNotAllocated: "The locale\(language) is not reserved."
        case .tooManyAssetLocalesAllocated: "Too many locales are reserved."
        case .incompatibleAudioFormats: "The modules have no audio format in common."
        case .moduleOutputFailed: "A module failed to produce its results."
        case .cannotAllocateUnsupportedLocale: "No speech model supports the locale\(language)."
        case .insufficientResources: "This machine lacks the resources for the request."
        }
        return detail.map { "\(base) \($0)" } ?? base
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch code {
        case .audioDisordered: "Give each AnalyzerInput a bufferStartTime at or after the end of the previous input, or none."
        case .unexpectedAudioFormat: "Convert the audio to the format SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith:) returns."
        case .noModel: "Install it first: `try await AssetInventory.assetInstallationRequest(supporting: modules)?.downloadAndInstall()`, or `aural models install`."
        case .assetLocaleNotAllocated, .tooManyAssetLocalesAllocated: "Release a locale you no longer use with AssetInventory.release(reservedLocale:)."
        case .incompatibleAudioFormats: "Use modules that share a format."
        case .moduleOutputFailed: "Check the module's configuration and try again."
        case .cannotAllocateUnsupportedLocale: "Choose a locale from SpeechTranscriber.supportedLocales."
        case .insufficientResources:
            "Use this framework's modules (SpeechTranscriber, DictationTranscriber, SpeechDetector) and free memory; when live analyses fill the cores, finish one or try again in a few seconds."
        }
    }
}
