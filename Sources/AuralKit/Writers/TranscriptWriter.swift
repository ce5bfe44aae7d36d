import AuralWhisper

/// Renders a transcription as the text of one output file (plain text, subtitles, JSON).
///
/// ```swift
/// let srt = TranscriptFormat.srt.writer.render(segments: segments, info: info)
/// try srt.write(to: outputURL, atomically: true, encoding: .utf8)
/// ```
///
/// Writers follow the conventions of openai/whisper's `utils.py` writers, so files match what
/// `whisper --output_format` produces except where a writer's documentation says otherwise.
public protocol TranscriptWriter: Sendable {
    /// The whole file's contents for these segments, ending with a newline unless empty.
    ///
    /// - Parameters:
    ///   - segments: The transcription's segments in order.
    ///   - info: The language and duration found for the audio.
    func render(segments: [Segment], info: TranscriptionInfo) -> String
}
