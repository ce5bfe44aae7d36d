import Foundation

/// Why a model folder could not be loaded. What goes wrong while transcribing is a `TranscriptionError`.
public enum WhisperModelError: Error, Sendable, Equatable {
    /// A file the model folder must hold is absent.
    case missingFile(path: String)
    /// A file exists but could not be read.
    case unreadableFile(path: String, reason: String)
    /// `model.bin` (or another model file) is truncated or malformed.
    case corruptModel(path: String, reason: String)
    /// The folder holds a model this engine does not run (another architecture, a quantization it refuses).
    case unsupportedModel(path: String, reason: String)
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
        case .engineUnavailable: "The speech engine cannot run on this system."
        }
    }

    public var failureReason: String? {
        switch self {
        case .missingFile(let path): "No file exists at \(path)."
        case .unreadableFile(_, let reason): reason
        case .corruptModel(_, let reason): reason
        case .unsupportedModel(_, let reason): reason
        case .engineUnavailable(let reason): reason
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .missingFile, .corruptModel:
            "Install the model again (ModelManager removes and reinstalls it), or load another complete model folder."
        case .unreadableFile:
            "Check the file's permissions and that the disk is readable, then try again."
        case .unsupportedModel:
            "Use a CTranslate2 Whisper folder in float16, float32 or bfloat16, such as Systran/faster-whisper-base."
        case .engineUnavailable:
            "Install OpenBLAS (on Debian: apt-get install libopenblas0)."
        }
    }
}
