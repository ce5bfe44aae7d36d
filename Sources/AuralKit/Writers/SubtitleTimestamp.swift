import Foundation

/// Subtitle times and cue text, shared by the SRT and WebVTT writers.
enum SubtitleTimestamp {
    /// Formats a time in seconds as `HH:MM:SS` + marker + `mmm`, like openai/whisper's `format_timestamp`
    /// with `always_include_hours`.
    ///
    /// Milliseconds are rounded half to even, as Python's `round` does (0.0005 s → 000, 0.0015 s → 002).
    /// Negative and non-finite times, which a timestamp cannot show, become 0, and times are capped at
    /// 10^9 s; hours grow past two digits instead of wrapping.
    static func format(_ seconds: Double, decimalMarker: Character) -> String {
        let clamped = seconds.isFinite ? min(max(seconds, 0), 1e9) : 0
        let totalMilliseconds = Int((clamped * 1000).rounded(.toNearestOrEven))
        let hours = totalMilliseconds / 3_600_000
        let minutes = totalMilliseconds / 60_000 % 60
        let wholeSeconds = totalMilliseconds / 1000 % 60
        let milliseconds = totalMilliseconds % 1000
        return String(format: "%02d:%02d:%02d", hours, minutes, wholeSeconds) + "\(decimalMarker)"
            + String(format: "%03d", milliseconds)
    }

    /// A segment's text as a cue shows it: stripped, with `-->` made harmless as openai/whisper does.
    static func cueText(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-->", with: "->")
    }
}
