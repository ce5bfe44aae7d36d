import AuralAudio
import AuralVAD
import AuralWhisper
import Foundation
import Speech

extension SpeechSessionError {
    /// `error` as a session error: the one place where errors of the lower layers (`ModelManager`'s
    /// `SpeechModelError`, the engine's `WhisperModelError` and `TranscriptionError`, the audio layer's
    /// `AudioSourceError` and `AudioDeviceError`, the voice activity model's `SileroVADError`, the Speech layer's
    /// `SFSpeechError`) become `SpeechSessionError`s. A `SpeechSessionError` passes
    /// through unchanged; an error this mapping does not know becomes `.transcriptionFailed` with its description.
    ///
    /// `SpeechModelError.tooManyReservedLocales` does not name the locale asked for; pass it with
    /// `from(_:locale:)`, or it is reported as the undetermined locale "und".
    public static func from(_ error: any Error) -> SpeechSessionError {
        from(error, locale: nil)
    }

    /// `error` as a session error, as `from(_:)`; `locale` is the locale the session asked a reservation for.
    static func from(_ error: any Error, locale: Locale?) -> SpeechSessionError {
        switch error {
        case let error as SpeechSessionError: error
        case let error as SpeechModelError: from(error, locale: locale ?? Locale(identifier: "und"))
        case let error as WhisperModelError: from(error)
        case let error as TranscriptionError: from(error)
        case let error as AudioSourceError: from(error)
        case let error as AudioDeviceError: from(error)
        case let error as SileroVADError: from(error)
        case let error as SFSpeechError: from(error, locale: locale)
        default: .transcriptionFailed(reason: error.localizedDescription)
        }
    }

    private static func from(_ error: SFSpeechError, locale: Locale?) -> SpeechSessionError {
        let locale = error.locale ?? locale ?? Locale(identifier: "und")
        switch error.code {
        case .cannotAllocateUnsupportedLocale: return .unsupportedLocale(locale)
        case .noModel: return .modelNotFound(name: error.model ?? locale.identifier, reason: error.errorDescription ?? "")
        case .assetLocaleNotAllocated, .tooManyAssetLocalesAllocated: return .modelReservationFailed(locale, error)
        case .audioDisordered, .unexpectedAudioFormat, .incompatibleAudioFormats: return .audioConversionFailed(error)
        case .moduleOutputFailed, .insufficientResources: return .transcriptionFailed(reason: error.errorDescription ?? "")
        }
    }

    private static func from(_ error: SileroVADError) -> SpeechSessionError {
        switch error {
        case .modelNotFound:
            .modelNotFound(name: SileroVAD.modelFolderName, reason: error.failureReason ?? error.localizedDescription)
        case .unreadableModel(let path, _), .invalidModel(let path, _):
            .modelCorrupt(path: path, reason: error.failureReason ?? error.localizedDescription)
        }
    }

    private static func from(_ error: SpeechModelError, locale: Locale) -> SpeechSessionError {
        switch error {
        case .modelNotInstalled(let name, _), .unknownModel(let name, _):
            .modelNotFound(name: name, reason: error.failureReason ?? "")
        case .unsupportedLocale(let locale):
            .unsupportedLocale(locale)
        case .modelDownloadNoInternet:
            .modelDownloadNoInternet
        case .modelDownloadFailed(_, .insufficientDiskSpace(let required, let available, _)):
            .insufficientDiskSpace(needed: required, available: available)
        case .modelDownloadFailed:
            .modelDownloadFailed(error)
        case .tooManyReservedLocales:
            .modelReservationFailed(locale, error)
        case .modelIncomplete(let name, _):
            .modelCorrupt(path: name, reason: error.failureReason ?? "")
        case .modelReserved:
            // Only removing a model throws this; a session never does, so it would be a bug in the session.
            .transcriptionFailed(reason: error.localizedDescription)
        }
    }

    private static func from(_ error: WhisperModelError) -> SpeechSessionError {
        switch error {
        case .missingFile(let path), .unreadableFile(let path, _), .corruptModel(let path, _),
            .unsupportedModel(let path, _):
            .modelCorrupt(path: path, reason: error.failureReason ?? "")
        case .engineUnavailable(let reason):
            .transcriptionFailed(reason: reason)
        }
    }

    private static func from(_ error: TranscriptionError) -> SpeechSessionError {
        switch error {
        case .unsupportedLanguage(let code):
            .unsupportedLocale(Locale(identifier: code))
        case .invalidAudio(let reason), .invalidOption(_, let reason):
            .transcriptionFailed(reason: reason)
        case .needsMultilingualModel:
            .transcriptionFailed(reason: error.localizedDescription)
        }
    }

    private static func from(_ error: AudioSourceError) -> SpeechSessionError {
        switch error {
        case .fileNotFound(let path):
            .audioFileNotFound(URL(fileURLWithPath: path))
        case .unreadableFile, .emptyFile, .truncated, .invalidHeader, .corruptFile:
            .audioFileReadFailed(error)
        case .notAudio, .unsupportedEncoding, .noAudioTrack, .unsupportedCodec:
            .audioFileUnsupportedFormat(error.failureReason ?? error.localizedDescription)
        case .conversionFailed:
            .audioConversionFailed(error)
        }
    }

    private static func from(_ error: AudioDeviceError) -> SpeechSessionError {
        switch error {
        case .noSoundServer(_, let reason) where isAccessDenied(reason),
            .streamFailed(_, let reason) where isAccessDenied(reason):
            .microphonePermissionDenied
        case .noSoundServer:
            .soundServerUnavailable(reason: error.failureReason ?? "")
        case .connectionLost(let reason):
            .soundServerUnavailable(reason: reason)
        case .serverNotResponding:
            .soundServerUnavailable(reason: error.failureReason ?? "")
        case .deviceNotFound(let name), .deviceDisappeared(let name), .streamFailed(let name, _):
            .audioDeviceUnavailable(name: name)
        }
    }

    /// Whether libpulse's error text is its text for `PA_ERR_ACCESS`, "Access denied".
    private static func isAccessDenied(_ reason: String) -> Bool {
        reason.range(of: "access denied", options: .caseInsensitive) != nil
    }
}
