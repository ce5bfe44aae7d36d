import Foundation

/// Why a `SpeechSession` could not start, continue or finish a transcription.
///
/// The cases keep AuralKit's names where they mean something on Linux, so that a `switch` written for AuralKit
/// compiles, and add Linux's own (a sound server, a device, a model folder). Each case carries its evidence, and
/// `errorDescription`, `failureReason` and `recoverySuggestion` are never empty. Errors of the engine, the audio
/// layer and `ModelManager` reach the session's streams as one of these cases through `SpeechSessionError.from(_:)`.
///
/// ```swift
/// do {
///     for try await result in session.startTranscribing() { print(result.text) }
/// } catch let error as SpeechSessionError {
///     switch error {
///     case .modelDownloadNoInternet: print("Connect to the network and try again.")
///     case .modelDownloadFailed(let underlying): print(underlying?.localizedDescription ?? "download failed")
///     default: print(error.localizedDescription)
///     }
/// }
/// ```
///
/// Two errors are equal when their cases and payloads are: underlying errors compare with `==` when they are
/// `Equatable` and of the same type, otherwise by type and `String(reflecting:)`.
public enum SpeechSessionError: LocalizedError, Sendable, Equatable {
    /// The sound server refused to let this process record (on Apple platforms: microphone permission denied).
    case microphonePermissionDenied

    /// No Whisper model transcribes the locale's language.
    case unsupportedLocale(Locale)

    /// The transcription stream could not be set up: a transcription is already running in this session, or its
    /// pipeline could not start.
    case recognitionStreamSetupFailed

    /// Audio could not be converted to the engine's 16 kHz mono samples; the payload is the converter's error.
    case audioConversionFailed((any Error & Sendable)?)

    /// Nothing exists at the file URL.
    case audioFileNotFound(URL)

    /// The URL is not a `file:` URL.
    case audioFileInvalidURL(URL)

    /// The file, after resolving symbolic links, is outside `FileTranscriptionOptions.allowedDirectories`.
    case audioFileOutsideAllowedDirectories(URL)

    /// The file holds no audio that can be decoded; the payload says what was found (a codec, "no audio track").
    case audioFileUnsupportedFormat(String)

    /// The file lasts longer than `FileTranscriptionOptions.maxDuration`; both durations in seconds.
    case audioFileTooLong(maximum: TimeInterval, actual: TimeInterval)

    /// The file could not be read to the end (unreadable, empty, cut off or damaged); the payload is the reader's
    /// error.
    case audioFileReadFailed((any Error & Sendable)?)

    /// The model server could not be reached, so the locale's model could not be downloaded.
    case modelDownloadNoInternet

    /// The model download started but failed; the payload is `ModelManager`'s error.
    case modelDownloadFailed((any Error & Sendable)?)

    /// The locale's model could not be reserved for the session; the payload is `ModelManager`'s error.
    case modelReservationFailed(Locale, any Error & Sendable)

    /// The contextual strings could not be applied.
    case contextSetupFailed(any Error & Sendable)

    /// The audio device is not there, or went away during the capture; `name` is the sound server's name for it.
    case audioDeviceUnavailable(name: String)

    /// No PulseAudio-compatible sound server answers, or the connection to it broke; `reason` says what happened.
    case soundServerUnavailable(reason: String)

    /// The model is neither installed nor in the catalog; `reason` says where it was looked for.
    case modelNotFound(name: String, reason: String)

    /// The model folder at `path` (or the model named so, when only the name is known) is incomplete, damaged or
    /// of a kind the engine does not run.
    case modelCorrupt(path: String, reason: String)

    /// The disk has too little room for the model; both sizes in bytes.
    case insufficientDiskSpace(needed: Int64, available: Int64)

    /// The engine failed while transcribing, or could not run at all; `reason` says why.
    case transcriptionFailed(reason: String)
}

extension SpeechSessionError {
    /// Equal cases with equal payloads; see the type's documentation for underlying errors.
    public static func == (lhs: SpeechSessionError, rhs: SpeechSessionError) -> Bool {
        switch (lhs, rhs) {
        case (.microphonePermissionDenied, .microphonePermissionDenied),
            (.recognitionStreamSetupFailed, .recognitionStreamSetupFailed),
            (.modelDownloadNoInternet, .modelDownloadNoInternet):
            return true
        case (.unsupportedLocale(let a), .unsupportedLocale(let b)):
            return a == b
        case (.audioConversionFailed(let a), .audioConversionFailed(let b)),
            (.audioFileReadFailed(let a), .audioFileReadFailed(let b)),
            (.modelDownloadFailed(let a), .modelDownloadFailed(let b)):
            return sameError(a, b)
        case (.audioFileNotFound(let a), .audioFileNotFound(let b)),
            (.audioFileInvalidURL(let a), .audioFileInvalidURL(let b)),
            (.audioFileOutsideAllowedDirectories(let a), .audioFileOutsideAllowedDirectories(let b)):
            return a == b
        case (.audioFileUnsupportedFormat(let a), .audioFileUnsupportedFormat(let b)):
            return a == b
        case (.audioFileTooLong(let a, let b), .audioFileTooLong(let c, let d)):
            return a == c && b == d
        case (.modelReservationFailed(let a, let b), .modelReservationFailed(let c, let d)):
            return a == c && sameError(b, d)
        case (.contextSetupFailed(let a), .contextSetupFailed(let b)):
            return sameError(a, b)
        case (.audioDeviceUnavailable(let a), .audioDeviceUnavailable(let b)):
            return a == b
        case (.soundServerUnavailable(let a), .soundServerUnavailable(let b)),
            (.transcriptionFailed(let a), .transcriptionFailed(let b)):
            return a == b
        case (.modelNotFound(let a, let b), .modelNotFound(let c, let d)),
            (.modelCorrupt(let a, let b), .modelCorrupt(let c, let d)):
            return a == c && b == d
        case (.insufficientDiskSpace(let a, let b), .insufficientDiskSpace(let c, let d)):
            return a == c && b == d
        default:
            return false
        }
    }

    private static func sameError(_ lhs: (any Error)?, _ rhs: (any Error)?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?):
            if let equatable = (lhs as Any) as? any Equatable { return equatable.isEqual(toAny: rhs) }
            return type(of: lhs) == type(of: rhs) && String(reflecting: lhs) == String(reflecting: rhs)
        default: return false
        }
    }
}

extension Equatable {
    /// Whether `other` is of this type and equal to `self`.
    fileprivate func isEqual(toAny other: Any) -> Bool {
        (other as? Self) == self
    }
}
