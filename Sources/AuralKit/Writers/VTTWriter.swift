import AuralWhisper

/// WebVTT subtitles: a `WEBVTT` header, then cues with `HH:MM:SS.mmm --> HH:MM:SS.mmm` times.
///
/// Follows openai/whisper's `WriteVTT` (stripped text, `-->` in text becomes `->`, a blank line after each
/// cue) with one difference: times always include hours. openai writes `MM:SS.mmm` below one hour; both
/// are valid WebVTT, and the full form is read by more players and tools.
public struct VTTWriter: TranscriptWriter {
    /// Creates a WebVTT writer.
    public init() {}

    /// The header and one cue per segment, in order.
    public func render(segments: [Segment], info: TranscriptionInfo) -> String {
        let cues = segments.map { segment in
            let start = SubtitleTimestamp.format(segment.start, decimalMarker: ".")
            let end = SubtitleTimestamp.format(segment.end, decimalMarker: ".")
            return "\(start) --> \(end)\n\(SubtitleTimestamp.cueText(segment.text))\n\n"
        }
        return "WEBVTT\n\n" + cues.joined()
    }
}
