/// A span of the session's audio: from `start` for `duration`, like CoreMedia's `CMTimeRange`.
///
/// The range is half-open: it contains `start` but not `end`. Session ranges use the timescale 16000 (samples).
public struct CMTimeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The first instant in the range.
    public var start: CMTime
    /// How long the range lasts; not negative for a range the session produces.
    public var duration: CMTime

    /// The first instant after the range: `start + duration`.
    public var end: CMTime { start + duration }

    /// The range from `start` lasting `duration`.
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to, not including, `end`.
    public init(start: CMTime, end: CMTime) {
        self.init(start: start, duration: end - start)
    }

    /// The empty range at time zero.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)

    /// A range that is no range: invalid start and duration.
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// Whether start and duration are valid times and the duration is not negative.
    public var isValid: Bool { start.isValid && duration.isValid && duration.value >= 0 }

    /// Whether the range is valid and lasts no time.
    public var isEmpty: Bool { isValid && duration.value == 0 }

    /// Whether `t` lies in the range: `start <= t < end`.
    public func containsTime(_ t: CMTime) -> Bool {
        isValid && t.isValid && start <= t && t < end
    }

    /// The part both ranges cover; an empty range at the later start when they do not overlap, `.invalid` when
    /// either is invalid.
    public func intersection(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        let start = max(self.start, other.start)
        let end = min(self.end, other.end)
        return CMTimeRange(start: start, end: max(start, end))
    }

    /// The smallest range that covers both.
    public func union(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        return CMTimeRange(start: min(start, other.start), end: max(end, other.end))
    }

    /// `"[0.5 s, 1.25 s)"`, or `"invalid"`.
    public var description: String {
        isValid ? "[\(start.seconds) s, \(end.seconds) s)" : "invalid"
    }
}

extension CMTimeRange {
    /// The samples `samples` of the session's 16 kHz audio, as a time range with timescale 16000.
    package init(samples: Range<Int>) {
        self.init(start: CMTime(sample: samples.lowerBound), duration: CMTime(sample: samples.count))
    }

    /// The 16 kHz samples the range covers, each bound rounded to the nearest sample.
    package var samples: Range<Int> {
        let lower = start.sample
        return lower..<max(lower, end.sample)
    }
}
