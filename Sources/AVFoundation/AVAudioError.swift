import AuralAudio

/// The errors this module throws: `NSError`s in Apple's AVFAudio domain, "com.apple.coreaudio.avfaudio", with Core
/// Audio's status codes, so code that checks `error.code` against Apple's constants keeps working, and with a
/// description, failure reason and recovery suggestion (`localizedDescription`, `localizedFailureReason`,
/// `localizedRecoverySuggestion`) in every case.
enum AVAudioError {
    /// Apple's AVFAudio error domain.
    static let domain = "com.apple.coreaudio.avfaudio"

    /// Core Audio status codes.
    enum Code {
        /// `kAudioFileNotOpenError`: the file was closed.
        static let notOpen = -38
        /// `kAudioFileFileNotFoundError`.
        static let fileNotFound = -43
        /// `kAudio_ParamError`: an argument is wrong (a buffer of another format, too small a buffer).
        static let parameter = -50
        /// `kAudioFileUnspecifiedError` ('wht?').
        static let unspecified = fourCharacterCode("wht?")
        /// `kAudioFileUnsupportedFileTypeError` ('typ?'): not an audio file.
        static let unsupportedFileType = fourCharacterCode("typ?")
        /// `kAudioFileUnsupportedDataFormatError` ('fmt?'): audio in a format that cannot be handled.
        static let unsupportedDataFormat = fourCharacterCode("fmt?")
        /// `kAudioFileInvalidFileError` ('dta?'): a damaged file.
        static let invalidFile = fourCharacterCode("dta?")
        /// `kAudioFilePermissionsError` ('prm?').
        static let permissions = fourCharacterCode("prm?")
        /// `kAudioHardwareNotRunningError` ('stop'): no sound server.
        static let hardwareNotRunning = fourCharacterCode("stop")
        /// `kAudioHardwareBadDeviceError` ('!dev'): no such device.
        static let badDevice = fourCharacterCode("!dev")

        private static func fourCharacterCode(_ text: String) -> Int {
            text.utf8.reduce(0) { $0 << 8 | Int($1) }
        }
    }

    /// An error with `code` and its texts; `path` and `underlying` go into the user info when given.
    static func make(_ code: Int, _ description: String, reason: String?, suggestion: String?, path: String? = nil,
                     underlying: Error? = nil) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let reason { info[NSLocalizedFailureReasonErrorKey] = reason }
        if let suggestion { info[NSLocalizedRecoverySuggestionErrorKey] = suggestion }
        if let path { info[NSFilePathErrorKey] = path }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: domain, code: code, userInfo: info)
    }

    /// A file that AuralAudio could not read, with AuralAudio's texts and its error underneath.
    static func file(_ error: AudioSourceError, path: String) -> NSError {
        let code: Int
        switch error {
        case .fileNotFound: code = Code.fileNotFound
        case .unreadableFile: code = Code.permissions
        case .notAudio, .noAudioTrack: code = Code.unsupportedFileType
        case .unsupportedEncoding, .unsupportedCodec, .conversionFailed: code = Code.unsupportedDataFormat
        case .emptyFile, .truncated, .invalidHeader, .corruptFile: code = Code.invalidFile
        }
        return make(code, error.errorDescription ?? "The audio file could not be read.", reason: error.failureReason,
                    suggestion: error.recoverySuggestion, path: path, underlying: error)
    }

    /// A sound server or device problem, with AuralAudio's texts and its error underneath.
    static func device(_ error: AudioDeviceError) -> NSError {
        let code: Int
        switch error {
        case .noSoundServer, .connectionLost, .serverNotResponding: code = Code.hardwareNotRunning
        case .deviceNotFound, .deviceDisappeared, .streamFailed: code = Code.badDevice
        }
        return make(code, error.errorDescription ?? "The sound server could not be used.", reason: error.failureReason,
                    suggestion: error.recoverySuggestion, underlying: error)
    }

    /// An argument that does not fit: `reason` says which and why.
    static func parameter(_ description: String, reason: String, suggestion: String? = nil) -> NSError {
        make(Code.parameter, description, reason: reason, suggestion: suggestion)
    }
}
