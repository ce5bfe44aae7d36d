import Foundation

/// Why the Silero VAD weights could not be loaded.
public enum SileroVADError: Error, Sendable, Equatable, LocalizedError {
    /// No file at `path`.
    case modelNotFound(path: String)
    /// The file exists but could not be read.
    case unreadableModel(path: String, reason: String)
    /// The file is not the Silero VAD 16 kHz safetensors file: a bad header, or a tensor missing, of another shape
    /// or dtype, or cut short.
    case invalidModel(path: String, reason: String)

    /// What went wrong, in one sentence.
    public var errorDescription: String? {
        switch self {
        case .modelNotFound(let path): "The Silero VAD weights are not installed (no file at \(path))."
        case .unreadableModel(let path, _): "The Silero VAD weights at \(path) could not be read."
        case .invalidModel(let path, _): "The file at \(path) is not a valid Silero VAD 16 kHz weights file."
        }
    }

    /// The evidence.
    public var failureReason: String? {
        switch self {
        case .modelNotFound(let path): "Voice activity detection loads the Silero VAD weights file, and \(path) does not exist."
        case .unreadableModel(_, let reason): reason
        case .invalidModel(_, let reason): reason
        }
    }

    /// How to recover.
    public var recoverySuggestion: String? {
        "Install the weights again: scripts/setup converts the 16 kHz model of the PyPI wheel silero-vad 6.2.3 into "
            + "silero-vad/silero_vad.safetensors in the model cache and checks its size and SHA-256."
    }
}
