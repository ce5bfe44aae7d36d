import Foundation

/// Why a model folder could not be loaded or an input could not be transcribed.
public enum WhisperModelError: Error, Sendable, Equatable {
    /// A file the model folder must hold is absent.
    case missingFile(path: String)
    /// A file exists but could not be read.
    case unreadableFile(path: String, reason: String)
    /// `model.bin` (or another model file) is truncated or malformed.
    case corruptModel(path: String, reason: String)
    /// The folder holds a model this engine does not run (another architecture, a quantization it refuses).
    case unsupportedModel(path: String, reason: String)
    /// The audio given to the engine cannot be used.
    case invalidAudio(reason: String)
    /// A decoding option is out of its range.
    case invalidOption(name: String, reason: String)
    /// The language code is not one the model knows.
    case unsupportedLanguage(code: String)
    /// A library the engine computes with (OpenBLAS) could not be opened.
    case engineUnavailable(reason: String)
}

extension WhisperModelError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .missingFile(let path): "The model file \(path) is missing."
        case .unreadableFile(let path, _): "The file \(path) could not be read."
        case .corruptModel(let path, _): "The model file \(path) is corrupt."
        case .unsupportedModel(let path, _): "The model at \(path) is not supported."
        case .invalidAudio: "The audio cannot be transcribed."
        case .invalidOption(let name, _): "The option \(name) is invalid."
        case .unsupportedLanguage(let code): "The language \"\(code)\" is not supported by this model."
        case .engineUnavailable: "The speech engine cannot run on this system."
        }
    }

    public var failureReason: String? {
        switch self {
        case .missingFile(let path): "No file exists at \(path)."
        case .unreadableFile(_, let reason): reason
        case .corruptModel(_, let reason): reason
        case .unsupportedModel(_, let reason): reason
        case .invalidAudio(let reason): reason
        case .invalidOption(_, let reason): reason
        case .unsupportedLanguage(let code):
            "\"\(code)\" is not one of Whisper's language codes, or the model is English-only."
        case .engineUnavailable(let reason): reason
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .missingFile, .corruptModel:
            "Reinstall the model: run scripts/setup again, or `aural models remove NAME` then `aural models install NAME`."
        case .unreadableFile:
            "Check the file's permissions and that the disk is readable, then try again."
        case .unsupportedModel:
            "Use a CTranslate2 Whisper folder in float16, float32 or bfloat16, such as Systran/faster-whisper-base."
        case .invalidAudio:
            "Give 16 kHz mono samples with finite values; convert other audio with `aural transcribe`, which resamples it."
        case .invalidOption:
            "Run `aural transcribe --help` for the allowed values."
        case .unsupportedLanguage:
            "Use a two-letter code such as en, de or zh with a multilingual model, or leave the language out to detect it."
        case .engineUnavailable:
            "Install OpenBLAS (Debian: apt-get install libopenblas0), or run scripts/setup."
        }
    }
}
