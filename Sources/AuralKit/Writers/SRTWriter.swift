import AuralWhisper

/// SubRip subtitles: numbered cues with `HH:MM:SS,mmm --> HH:MM:SS,mmm` times.
///
/// Follows openai/whisper's `WriteSRT`: cues are numbered from 1, times always include hours and use a
/// comma before the milliseconds, text is stripped of surrounding whitespace and any `-->` in it becomes
/// `->` so it cannot be read as a timing line. Each cue ends with a blank line.
public struct SRTWriter: TranscriptWriter {
    /// Creates a SubRip writer.
    public init() {}

    /// The cues, one per segment, in order.
    public func render(segments: [Segment], info: TranscriptionInfo) -> String {
        segments.enumerated().map { index, segment in
            let start = SubtitleTimestamp.format(segment.start, decimalMarker: ",")
            let end = SubtitleTimestamp.format(segment.end, decimalMarker: ",")
            return "\(index + 1)\n\(start) --> \(end)\n\(SubtitleTimestamp.cueText(segment.text))\n\n"
        }.joined()
    }
}
