/// The output file formats, named by their file extensions.
///
/// ```swift
/// let format = TranscriptFormat(rawValue: "srt") ?? .txt
/// let file = outputFolder.appendingPathComponent("speech").appendingPathExtension(format.fileExtension)
/// try format.writer.render(segments: segments, info: info).write(to: file, atomically: true, encoding: .utf8)
/// ```
public enum TranscriptFormat: String, CaseIterable, Sendable {
    /// Plain text, one segment per line (`TextWriter`).
    case txt
    /// SubRip subtitles (`SRTWriter`).
    case srt
    /// WebVTT subtitles (`VTTWriter`).
    case vtt
    /// The full transcription with timings, tokens and scores (`JSONWriter`).
    case json

    /// The writer that renders this format.
    public var writer: any TranscriptWriter {
        switch self {
        case .txt: return TextWriter()
        case .srt: return SRTWriter()
        case .vtt: return VTTWriter()
        case .json: return JSONWriter()
        }
    }

    /// The file extension, without the dot ("srt").
    public var fileExtension: String { rawValue }
}
