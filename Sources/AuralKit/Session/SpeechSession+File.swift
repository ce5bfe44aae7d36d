import AuralAudio
import AuralWhisper
import Foundation
import Speech

/// Limits on a file transcription, as in AuralKit.
public struct FileTranscriptionOptions: Sendable {
    /// Words and names to expect (they prompt the decoder).
    public var contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]?
    /// The longest audio accepted, in seconds; nil accepts any length.
    public var maxDuration: TimeInterval?
    /// Folders the file must lie in (after resolving symbolic links). Empty: the working directory, the home
    /// directory and the temporary directory.
    public var allowedDirectories: [URL]

    public init(
        contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]? = nil, maxDuration: TimeInterval? = nil,
        allowedDirectories: [URL]? = nil
    ) {
        self.contextualStrings = contextualStrings
        self.maxDuration = maxDuration
        self.allowedDirectories = allowedDirectories ?? []
    }

    /// The folders a file may come from when `allowedDirectories` is empty.
    static var defaultDirectories: [URL] {
        var folders = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), FileManager.default.homeDirectoryForCurrentUser]
        folders.append(FileManager.default.temporaryDirectory)
        return folders
    }
}

extension SpeechSession {
    /// Transcribes an audio or video file (anything FFmpeg's libraries read) as fast as the machine allows, and
    /// streams the results: each segment as a final result with word times, in order. `progressHandler` gets the
    /// fraction of the audio done, from 0 to 1.
    ///
    /// The file is transcribed whole by a `SpeechAnalyzer`'s file path, with the accuracy of offline transcription
    /// (30-second windows, temperature fallback, previous-text conditioning), not through the live policy.
    /// `stopTranscribing()` ends it at once (at the next decoded token; the window under way gives no results);
    /// `pauseTranscribing()` does nothing.
    public func streamTranscription(
        from audioFile: URL, options: FileTranscriptionOptions = FileTranscriptionOptions(),
        progressHandler: (@Sendable (Double) -> Void)? = nil
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        begin(source: { FileSource(url: audioFile) }, isFile: true) { [self] run in
            await transcribeFile(audioFile, options: options, run: run, progressHandler: progressHandler)
        }
    }

    /// Transcribes a file and returns its final results once done (see `streamTranscription(from:options:progressHandler:)`).
    public func transcribe(
        audioFile: URL, options: FileTranscriptionOptions = FileTranscriptionOptions(),
        progressHandler: (@Sendable (Double) -> Void)? = nil
    ) async throws -> [SpeechTranscriber.Result] {
        var results: [SpeechTranscriber.Result] = []
        for try await result in streamTranscription(from: audioFile, options: options, progressHandler: progressHandler)
        where result.isFinal {
            results.append(result)
        }
        return results
    }

    private func transcribeFile(
        _ url: URL, options: FileTranscriptionOptions, run: SessionRun, progressHandler: (@Sendable (Double) -> Void)?
    ) async {
        do {
            try Self.validate(url, options: options)
            try await installModelIfNeeded()
            let transcriber = makeTranscriber()
            let analyzer = try await makeAnalyzer([transcriber], contextualStrings: options.contextualStrings ?? [:])
            if current === run { status = .transcribing }
            try await analyze(with: analyzer, transcriber: transcriber, for: run) {
                _ = try await analyzer.analyzeFile(at: url, progress: progressHandler)
            }
            if !Task.isCancelled { progressHandler?(1) }
            await end(run, failure: nil)
        } catch {
            // A stop cancels a file run: what was transcribed until then has been delivered.
            await end(run, failure: Task.isCancelled ? nil : SpeechSessionError.from(error, locale: locale))
        }
    }

    /// AuralKit's checks, in its order: a file URL, that exists, inside the allowed folders, that opens as audio, of
    /// non-zero length, no longer than the maximum. Returns the duration in seconds when the file states it.
    @discardableResult
    nonisolated static func validate(_ url: URL, options: FileTranscriptionOptions) throws -> TimeInterval? {
        guard url.isFileURL else { throw SpeechSessionError.audioFileInvalidURL(url) }
        guard FileManager.default.fileExists(atPath: url.path) else { throw SpeechSessionError.audioFileNotFound(url) }
        let resolved = url.resolvingSymlinksInPath().standardizedFileURL.path
        let folders = options.allowedDirectories.isEmpty ? FileTranscriptionOptions.defaultDirectories : options.allowedDirectories
        let inside = folders.contains { folder in
            let base = folder.resolvingSymlinksInPath().standardizedFileURL.path
            return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
        }
        guard inside else { throw SpeechSessionError.audioFileOutsideAllowedDirectories(url) }
        let reader: AudioFileReader
        do {
            reader = try AudioFileReader(url: url)
        } catch let error as AudioSourceError {
            switch error {
            case .notAudio, .noAudioTrack, .unsupportedCodec, .unsupportedEncoding, .emptyFile:
                throw SpeechSessionError.audioFileUnsupportedFormat(error.failureReason ?? error.localizedDescription)
            default:
                throw SpeechSessionError.audioFileReadFailed(error)
            }
        }
        if let maximum = options.maxDuration, let duration = reader.duration, duration > maximum {
            throw SpeechSessionError.audioFileTooLong(maximum: maximum, actual: duration)
        }
        return reader.duration
    }
}
