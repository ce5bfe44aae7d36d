import AVFoundation

// The protocols Firefox's `SpeechAnalyzerEngine` (../shared/seeds/002_…) imports from Firefox's `Common` module,
// written from how the engine uses them, so that its file compiles here as printed.

/// A speech-to-text engine an app drives: prepare (permissions, audio session), start with a continuation that
/// receives results, stop.
public protocol TranscriptionEngine {
    /// Checks permissions and configures audio.
    func prepare() async throws
    /// Starts transcription; results go to `continuation`.
    func start(continuation: AsyncThrowingStream<SpeechResult, any Error>.Continuation) async throws
    /// Stops capture and finishes the analysis.
    func stop() async throws
}

/// Text an engine heard, final or not.
public struct SpeechResult: Sendable, Equatable {
    /// The text.
    public let text: String
    /// Whether the text is final.
    public let isFinal: Bool

    /// A result.
    public init(text: String, isFinal: Bool) {
        self.text = text
        self.isFinal = isFinal
    }
}

/// Why an engine cannot transcribe.
public enum SpeechError: Error, Equatable {
    /// The microphone or speech recognition is not authorized.
    case permissionDenied
    /// No audio format suits the modules (their assets are missing).
    case noAudioFormat
    /// The analyzer's input stream was not set up.
    case noInputContinuation
    /// No model supports the locale.
    case unableToSupportLocale
}

/// Answers whether the app may use the microphone and speech recognition.
public protocol AuthorizeProvider {
    /// Whether the microphone may be used.
    func isMicrophonePermissionAuthorized() async -> Bool
    /// Whether speech recognition may be used.
    func isSpeechPermissionAuthorized() async -> Bool
}

/// Captures the microphone and hands its buffers, converted to a target format, to a callback.
public protocol AudioManagerProtocol {
    /// Configures the platform's audio session for recording.
    func configureAudioSession() throws
    /// Installs the capture: each buffer, converted to `targetFormat`, goes to `onBuffer` on the audio thread.
    func startCapture(
        targetFormat: AVAudioFormat, bufferSize: AVAudioFrameCount, onBuffer: @escaping @Sendable (AVAudioPCMBuffer) -> Void
    ) throws
    /// Prepares and starts the audio engine.
    func prepareAndStartEngine() throws
    /// Stops the audio engine and removes the capture.
    func stopEngine()
}
