import Foundation

/// Why a model could not be found, resolved, installed, reserved or removed.
public enum SpeechModelError: Error, Sendable, Equatable {
    /// No folder of that name or path.
    case modelNotInstalled(name: String, searched: String)
    /// The catalog has no model of that name.
    case unknownModel(name: String, available: [String])
    /// No model transcribes this locale's language.
    case unsupportedLocale(Locale)
    /// The model server could not be reached: DNS failure, connection refused, time-out or no network.
    case modelDownloadNoInternet(endpoint: String, reason: String)
    /// The download started but failed; nothing was installed. Partial files stay staged so that the next attempt
    /// resumes, except after a checksum or size mismatch.
    case modelDownloadFailed(model: String, cause: ModelDownloadFailure)
    /// Already `maximum` locales are reserved; release one first.
    case tooManyReservedLocales(maximum: Int, reserved: [Locale])
    /// A running session holds a reservation on the model, so it cannot be removed now.
    case modelReserved(name: String)
    /// The model's folder (installed, or given by path) is missing files or holds files of the wrong size.
    case modelIncomplete(name: String, problems: [String])
}

/// What went wrong during a download, carried by `SpeechModelError.modelDownloadFailed`.
public enum ModelDownloadFailure: Error, Sendable, Equatable {
    /// The server answered with an HTTP error: 401 or 403 (a gated or private repository), 404 (no such file or
    /// revision), 5xx (server trouble).
    case httpStatus(code: Int, url: String)
    /// The file that arrived is not as long as the catalog or the server said.
    case sizeMismatch(file: String, expected: Int64, actual: Int64)
    /// The file's SHA-256 differs from the catalog's or the server's.
    case checksumMismatch(file: String, expected: String, actual: String)
    /// Not enough free space for what is left to download.
    case insufficientDiskSpace(required: Int64, available: Int64, path: String)
    /// The disk filled up while writing (ENOSPC).
    case diskFull(path: String)
    /// Another file-system error while staging or installing.
    case fileSystem(path: String, reason: String)
    /// The connection broke and retrying from the byte reached did not help.
    case connectionLost(url: String, reason: String)
}

extension SpeechModelError: LocalizedError {
    /// A one-sentence summary.
    public var errorDescription: String? {
        switch self {
        case .modelNotInstalled(let name, _): "The model \"\(name)\" is not installed."
        case .unknownModel(let name, _): "There is no model named \"\(name)\"."
        case .unsupportedLocale(let locale): "No Whisper model transcribes the locale \(locale.identifier)."
        case .modelDownloadNoInternet: "The model could not be downloaded: the model server cannot be reached."
        case .modelDownloadFailed(let model, _): "The model \"\(model)\" could not be downloaded."
        case .tooManyReservedLocales(let maximum, _): "No more than \(maximum) locales can be reserved at once."
        case .modelReserved(let name): "The model \"\(name)\" is in use."
        case .modelIncomplete(let name, _): "The model \"\(name)\" is incomplete."
        }
    }

    /// What was found.
    public var failureReason: String? {
        switch self {
        case .modelNotInstalled(_, let searched): "No model folder exists at \(searched)."
        case .unknownModel(_, let available): "The catalog holds \(available.joined(separator: ", "))."
        case .unsupportedLocale(let locale):
            "Whisper knows 99 languages; \"\(ModelCatalog.whisperLanguage(for: locale) ?? locale.identifier)\" is not one of them."
        case .modelDownloadNoInternet(let endpoint, let reason): "\(endpoint): \(reason)."
        case .modelDownloadFailed(_, let cause): cause.failureReason
        case .tooManyReservedLocales(_, let reserved):
            "Reserved: \(reserved.map(\.identifier).joined(separator: ", "))."
        case .modelReserved: "A running session has reserved it."
        case .modelIncomplete(_, let problems): problems.joined(separator: "; ") + "."
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .modelNotInstalled:
            "Install it with ModelManager's install(_:), give the path of a CTranslate2 model folder instead of a name, "
                + "or set AURALKIT_MODELS_DIR to the folder that holds your models."
        case .unknownModel: "Choose a name from ModelManager's catalog (ModelCatalog.models), the models that can be installed."
        case .unsupportedLocale: "Choose one of ModelManager's supportedLocales, or transcribe with language detection."
        case .modelDownloadNoInternet:
            "Check the network connection, or set HF_ENDPOINT to a reachable Hugging Face mirror; then install again. "
                + "Installed models keep working offline."
        case .modelDownloadFailed(_, let cause): cause.recoverySuggestion
        case .tooManyReservedLocales: "Stop a session that uses another locale, then start this one again."
        case .modelReserved: "Stop the sessions that use it, then remove it."
        case .modelIncomplete:
            "Remove it with ModelManager's remove(_:) and install it again, or, for a folder you converted yourself, add "
                + "the missing files."
        }
    }
}

extension ModelDownloadFailure {
    /// What was found.
    public var failureReason: String {
        switch self {
        case .httpStatus(let code, let url): "The server answered HTTP \(code) for \(url)."
        case .sizeMismatch(let file, let expected, let actual): "\(file) has \(actual) bytes; \(expected) were expected."
        case .checksumMismatch(let file, let expected, let actual):
            "\(file) has SHA-256 \(actual); \(expected) was expected."
        case .insufficientDiskSpace(let required, let available, let path):
            "\(ByteCountFormatter.string(fromByteCount: required, countStyle: .file)) are needed in \(path) but only "
                + "\(ByteCountFormatter.string(fromByteCount: available, countStyle: .file)) are free."
        case .diskFull(let path): "The disk filled up while writing \(path)."
        case .fileSystem(let path, let reason): "\(path): \(reason)."
        case .connectionLost(let url, let reason): "The connection to \(url) broke: \(reason)."
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String {
        switch self {
        case .httpStatus(let code, _) where code == 401 || code == 403:
            "The repository needs an access token: set HF_TOKEN to a Hugging Face token that can read it."
        case .httpStatus(404, _): "Check the model name and the endpoint (HF_ENDPOINT); the file or revision does not exist there."
        case .httpStatus: "The server had a problem; try again later (the download resumes where it stopped)."
        case .sizeMismatch, .checksumMismatch:
            "The file was damaged on the way or the server holds other files; install again, or try another endpoint."
        case .insufficientDiskSpace, .diskFull:
            "Free some disk space, or set AURALKIT_MODELS_DIR to a folder on a larger disk; then install again."
        case .fileSystem: "Check that the model folder is writable (AURALKIT_MODELS_DIR), then install again."
        case .connectionLost: "Install again: the download resumes from the byte reached."
        }
    }
}
