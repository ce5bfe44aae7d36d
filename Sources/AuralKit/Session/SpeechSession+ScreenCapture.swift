import AuralAudio
import Foundation
import Speech

// Screen-capture audio, as AuralKit names it: what the machine plays, transcribed like the microphone. On Apple's
// platforms AuralKit records the content the user picks in ScreenCaptureKit's system picker. Linux has no such
// picker; the sound server (PulseAudio, or PipeWire through pipewire-pulse) records what an output plays through
// the output's monitor, and `ScreenCaptureTranscriptionOptions.target` stands for the picker's choice.

extension SpeechSession {
    /// What `startTranscribingScreenCapture(options:contextualStrings:)` records: AuralKit's
    /// `ScreenCaptureTranscriptionOptions`, with Linux's `target` in place of the system picker's choice.
    ///
    /// ```swift
    /// let options = SpeechSession.ScreenCaptureTranscriptionOptions(excludesCurrentProcessAudio: true)
    /// let browser = SpeechSession.ScreenCaptureTranscriptionOptions(target: .application(id: app.id))
    /// ```
    ///
    /// On Apple's platforms the content comes from ScreenCaptureKit's system picker. On Linux "the content chosen"
    /// is `target`: by default everything the default output plays (its PulseAudio/PipeWire monitor, following the
    /// user to a new default output), else one output by name, or one application's playback alone (an id from
    /// `AuralAudio.AudioDevices.list().applications`). Linux asks no screen-recording permission: any program of
    /// the user's session may record an output's monitor, so nothing like `NSScreenCaptureUsageDescription` applies.
    public struct ScreenCaptureTranscriptionOptions: Sendable, Hashable {
        /// The playback recorded: the default output (the default), a named output, or one application.
        public var target: SystemAudioTarget
        /// Whether this process's own playback is left out, as ScreenCaptureKit's setting of the same name (true
        /// by default, as in AuralKit). While this process plays, each other application's playback is then
        /// recorded on its own and mixed; while it plays nothing, the output is recorded as it is. It has no effect
        /// with `.application`.
        public var excludesCurrentProcessAudio: Bool

        /// Options recording `target` (default: the default output), by default without this process's playback.
        public init(target: SystemAudioTarget = .defaultOutput, excludesCurrentProcessAudio: Bool = true) {
            self.target = target
            self.excludesCurrentProcessAudio = excludesCurrentProcessAudio
        }
    }

    /// Transcribes what the machine plays, AuralKit's screen-capture transcription: on Linux the playback
    /// `options.target` names (by default the default output's monitor) instead of content chosen in a system
    /// picker, with no permission to ask. Returns at once; the stream yields the usual results until
    /// `stopTranscribing()` (after the last words are flushed) or an error, as `startTranscribing()` does.
    ///
    /// ```swift
    /// for try await result in session.startTranscribingScreenCapture() {
    ///     if result.isFinal { print(String(result.text.characters)) }
    /// }
    /// ```
    /// - Parameters:
    ///   - options: what to record, and whether this process's playback is left out.
    ///   - contextualStrings: words and names to expect (they prompt the decoder).
    public func startTranscribingScreenCapture(
        options: ScreenCaptureTranscriptionOptions = .init(),
        contextualStrings: [AnalysisContext.ContextualStringsTag: [String]]? = nil
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        let source = PulseSystemAudioSource(target: options.target, excludesCurrentProcessAudio: options.excludesCurrentProcessAudio)
        return startTranscribing(from: source, contextualStrings: contextualStrings)
    }

    /// `startTranscribingScreenCapture(options:contextualStrings:)` with the strings under `.general`.
    public func startTranscribingScreenCapture(
        options: ScreenCaptureTranscriptionOptions = .init(), contextualStrings: [String]
    ) -> AsyncThrowingStream<SpeechTranscriber.Result, Error> {
        startTranscribingScreenCapture(options: options, contextualStrings: [.general: contextualStrings])
    }
}

/// The earlier name of `SpeechSession.ScreenCaptureTranscriptionOptions`, the same type, kept for existing callers
/// of `startTranscribingSystemAudio(options:contextualStrings:)`.
public typealias SystemAudioTranscriptionOptions = SpeechSession.ScreenCaptureTranscriptionOptions
