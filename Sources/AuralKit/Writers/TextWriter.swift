import AuralWhisper
import Foundation

/// Plain text: each segment's text with surrounding whitespace removed, one segment per line.
///
/// Follows openai/whisper's `WriteTXT`.
public struct TextWriter: TranscriptWriter {
    /// Creates a plain-text writer.
    public init() {}

    /// One line per segment, each ending with a newline; empty when there are no segments.
    public func render(segments: [Segment], info: TranscriptionInfo) -> String {
        segments.map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) + "\n" }.joined()
    }
}
