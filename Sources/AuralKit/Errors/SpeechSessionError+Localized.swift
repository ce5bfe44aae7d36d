import AuralVAD
import Foundation

extension SpeechSessionError {
    /// One sentence saying what went wrong, naming the file, device, locale or model.
    public var errorDescription: String? {
        switch self {
        case .microphonePermissionDenied:
            "Access to the microphone was denied."
        case .unsupportedLocale(let locale):
            "The locale '\(locale.identifier)' is not supported."
        case .recognitionStreamSetupFailed:
            "Failed to set up the speech recognition stream."
        case .audioConversionFailed(let underlying):
            "Audio conversion failed" + Self.detail(underlying) + "."
        case .audioFileNotFound(let url):
            "Audio file not found at path \(url.path)."
        case .audioFileInvalidURL(let url):
            "The URL '\(url.absoluteString)' is not a valid file path."
        case .audioFileOutsideAllowedDirectories(let url):
            "The audio file at \(url.path) is outside the allowed directories."
        case .audioFileUnsupportedFormat(let format):
            "Audio file format is not supported: \(format)."
        case .audioFileTooLong(let maximum, let actual):
            "Audio file duration (\(Self.seconds(actual)) seconds) exceeds the allowed limit of "
                + "\(Self.seconds(maximum)) seconds."
        case .audioFileReadFailed(let underlying):
            "Failed to read the audio file" + Self.detail(underlying) + "."
        case .modelDownloadNoInternet:
            "Speech model download failed. No internet connection detected."
        case .modelDownloadFailed(let underlying):
            "Speech model download failed" + Self.detail(underlying) + "."
        case .modelReservationFailed(let locale, let underlying):
            "Failed to reserve the speech model for locale '\(locale.identifier)'" + Self.detail(underlying) + "."
        case .contextSetupFailed(let underlying):
            "Failed to set up the analysis context" + Self.detail(underlying) + "."
        case .audioDeviceUnavailable(let name):
            "The audio device \"\(name)\" is not available."
        case .soundServerUnavailable:
            "No sound server is available."
        case .modelNotFound(let name, _):
            "The speech model \"\(name)\" is not available."
        case .modelCorrupt(let path, _):
            "The speech model at \(path) cannot be used."
        case .insufficientDiskSpace:
            "There is not enough disk space for the speech model."
        case .transcriptionFailed:
            "Transcription failed."
        }
    }

    /// The evidence: what was found where something else was expected.
    public var failureReason: String? {
        switch self {
        case .microphonePermissionDenied:
            "The sound server refused this process access to recording."
        case .unsupportedLocale(let locale):
            "No Whisper model transcribes the language of '\(locale.identifier)'."
        case .recognitionStreamSetupFailed:
            "A transcription is already running in this session, or its audio pipeline could not start."
        case .audioConversionFailed(let underlying):
            Self.reason(underlying) ?? "The audio could not be converted to 16 kHz mono samples."
        case .audioFileNotFound(let url):
            "Nothing exists at \(url.path)."
        case .audioFileInvalidURL(let url):
            "Only file URLs can be transcribed; this URL's scheme is '\(url.scheme ?? "none")'."
        case .audioFileOutsideAllowedDirectories(let url):
            "After resolving symbolic links, \(url.path) lies in none of the allowed directories."
        case .audioFileUnsupportedFormat(let format):
            "The file holds no audio that can be decoded (\(format))."
        case .audioFileTooLong(let maximum, let actual):
            "The file lasts \(Self.seconds(actual)) seconds; at most \(Self.seconds(maximum)) seconds are allowed."
        case .audioFileReadFailed(let underlying):
            Self.reason(underlying) ?? "The file could not be read to the end."
        case .modelDownloadNoInternet:
            "The model server could not be reached."
        case .modelDownloadFailed(let underlying):
            Self.reason(underlying) ?? "The download did not complete."
        case .modelReservationFailed(_, let underlying):
            Self.reason(underlying) ?? "The model manager refused the reservation."
        case .contextSetupFailed(let underlying):
            Self.reason(underlying) ?? "The contextual strings could not be turned into a prompt."
        case .audioDeviceUnavailable(let name):
            "The sound server has no input called \"\(name)\", or it went away (unplugged or unloaded)."
        case .soundServerUnavailable(let reason):
            reason
        case .modelNotFound(_, let reason):
            reason
        case .modelCorrupt(_, let reason):
            reason
        case .insufficientDiskSpace(let needed, let available):
            "\(Self.bytes(needed)) are needed but only \(Self.bytes(available)) are free."
        case .transcriptionFailed(let reason):
            reason
        }
    }

    /// What the user or the app can do about it, in terms of this library's API.
    public var recoverySuggestion: String? {
        switch self {
        case .microphonePermissionDenied:
            "Run the app in the user's own login session, where the sound server accepts it; in a sandbox such as "
                + "Flatpak, grant the app access to the PulseAudio socket."
        case .unsupportedLocale:
            "Choose one of the supportedLocales that SpeechSession.deviceCapabilities() reports."
        case .recognitionStreamSetupFailed:
            "Call stopTranscribing() before starting again, or use a second SpeechSession."
        case .audioConversionFailed:
            "Use an input that delivers audio at a positive sample rate with 1 to 64 channels, then start again."
        case .audioFileNotFound:
            "Check the path and its spelling; a relative path is resolved against the current directory."
        case .audioFileInvalidURL:
            "Pass a local file URL, for example URL(fileURLWithPath:); download remote audio first."
        case .audioFileOutsideAllowedDirectories:
            "Move the file into an allowed directory, or add its directory to "
                + "FileTranscriptionOptions.allowedDirectories."
        case .audioFileUnsupportedFormat:
            "Convert the file to a common format such as 16-bit PCM WAV, FLAC or MP3; a video needs an audio track."
        case .audioFileTooLong:
            "Trim or split the file, or raise FileTranscriptionOptions.maxDuration."
        case .audioFileReadFailed:
            "Check that the file is readable and complete; copy or export it again if it was cut off."
        case .modelDownloadNoInternet:
            "Connect to the network and start again, or give ModelManager the endpoint of a reachable Hugging Face "
                + "mirror. Installed models work offline."
        case .modelDownloadFailed:
            "Start again: the download resumes where it stopped. If it keeps failing, check the network and the free "
                + "space of ModelManager's cacheDirectory."
        case .modelReservationFailed:
            "Stop a session that uses another locale, or create the ModelManager with a larger maxReservedLocales."
        case .contextSetupFailed:
            "Start again with fewer or shorter contextual strings."
        case .audioDeviceUnavailable:
            "Reconnect the device and start again, or capture from the default input, which follows device changes."
        case .soundServerUnavailable:
            "Start PulseAudio or pipewire-pulse for this user (`pactl info` must answer), or set PULSE_SERVER to the "
                + "address of a running server."
        case .modelNotFound(let name, _) where name == SileroVAD.modelFolderName:
            "Run scripts/setup, which installs the voice activity model into the model cache, or call "
                + "disableVoiceActivation() to transcribe without it."
        case .modelCorrupt(let path, _) where path.contains("/\(SileroVAD.modelFolderName)/"):
            "Delete \(path) and run scripts/setup again, or call disableVoiceActivation() to transcribe without it."
        case .modelNotFound:
            "Install the model with ModelManager.install(_:), or choose one of ModelManager.installedModels()."
        case .modelCorrupt:
            "Remove the model with ModelManager.remove(_:) and install it again with ModelManager.install(_:)."
        case .insufficientDiskSpace:
            "Free some disk space, or create the ModelManager with a cacheDirectory on a larger disk."
        case .transcriptionFailed:
            "Start the transcription again; if it fails again, reinstall the model or use another one."
        }
    }
}

extension SpeechSessionError {
    /// ": <the underlying error's description>", or nothing.
    fileprivate static func detail(_ underlying: (any Error)?) -> String {
        guard let underlying else { return "" }
        return ": " + description(of: underlying)
    }

    /// The underlying error's failure reason, else its description; `nil` without an underlying error.
    fileprivate static func reason(_ underlying: (any Error)?) -> String? {
        guard let underlying else { return nil }
        if let reason = (underlying as? any LocalizedError)?.failureReason, !reason.isEmpty { return reason }
        return description(of: underlying)
    }

    /// The error's description without a trailing period, so that it ends a sentence of ours.
    private static func description(of error: any Error) -> String {
        var text = error.localizedDescription
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    fileprivate static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.2f", value)
    }

    fileprivate static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
