import Foundation

/// Why audio could not be transcribed with a loaded model. Loading errors are `WhisperModelError`s.
public enum TranscriptionError: Error, Sendable, Equatable {
    /// The samples cannot be used (a value that is not finite, audio that changed between two readings).
    case invalidAudio(reason: String)
    /// A `DecodingOptions` field is out of its range.
    case invalidOption(name: String, reason: String)
    /// The language code is not one of Whisper's, or the model cannot transcribe it.
    case unsupportedLanguage(code: String)
    /// The request needs a multilingual model (language detection, translation) and this one is English-only.
    case needsMultilingualModel(feature: String)
}

extension TranscriptionError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .invalidAudio: "The audio cannot be transcribed."
        case .invalidOption(let name, _): "The option \(name) is invalid."
        case .unsupportedLanguage(let code): "The language \"\(code)\" is not supported by this model."
        case .needsMultilingualModel(let feature): "\(feature.prefix(1).uppercased() + feature.dropFirst()) needs a multilingual model."
        }
    }

    public var failureReason: String? {
        switch self {
        case .invalidAudio(let reason): reason
        case .invalidOption(_, let reason): reason
        case .unsupportedLanguage(let code):
            "\"\(code)\" is not one of Whisper's language codes, or the model is English-only."
        case .needsMultilingualModel: "The loaded model is English-only (its name ends in .en)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .invalidAudio:
            "Give 16 kHz mono samples with finite values; AudioFileReader and BufferConverter produce them from other audio."
        case .invalidOption:
            "Set the option within the range its DecodingOptions documentation gives."
        case .unsupportedLanguage:
            "Use a two-letter code such as en, de or zh with a multilingual model, or leave the language nil to detect it."
        case .needsMultilingualModel:
            "Load a multilingual model (tiny, base, small, …), or set DecodingOptions.language to \"en\"."
        }
    }
}
