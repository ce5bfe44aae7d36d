/// The numerator of a `CMTime`: a count of `1 / timescale` seconds (CoreMedia's `CMTimeValue`).
public typealias CMTimeValue = Int64

/// The denominator of a `CMTime`: units per second (CoreMedia's `CMTimeScale`).
public typealias CMTimeScale = Int32

/// A point in the session's audio, as a rational number of seconds: `value / timescale`.
///
/// Shaped like CoreMedia's `CMTime`, so that code written for Apple's Speech framework, such as
/// `run.audioTimeRange?.start.seconds`, compiles unchanged on Linux. Only the parts that speech results need are
/// here: no flags, epochs or infinities.
///
/// Times the session produces use a timescale of 16000, so `value` counts samples of the 16 kHz mono audio the
/// engine hears, and times are exact. Equality and ordering compare the numbers, not the fields: `1/2` equals
/// `8000/16000`. A time whose timescale is not positive is invalid (`isValid` is false): invalid times equal each
/// other, are greater than every valid time, and make any sum or difference invalid.
public struct CMTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The numerator: a count of `1 / timescale` seconds.
    public var value: CMTimeValue
    /// Units per second; positive for a valid time.
    public var timescale: CMTimeScale

    /// A time of `value / timescale` seconds.
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self.value = value
        self.timescale = timescale
    }

    /// The multiple of `1 / preferredTimescale` seconds nearest to `seconds` (halves round away from zero).
    /// Not-a-number, an infinity, a value out of `Int64`'s range or a timescale that is not positive give `.invalid`.
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        let units = (seconds * Double(preferredTimescale)).rounded()
        guard preferredTimescale > 0, let value = Int64(exactly: units) else {
            self = .invalid
            return
        }
        self.init(value: value, timescale: preferredTimescale)
    }

    /// The time in seconds; NaN for an invalid time.
    public var seconds: Double {
        isValid ? Double(value) / Double(timescale) : .nan
    }

    /// Time zero, with the session's timescale of 16000 (CoreMedia's `kCMTimeZero` uses 1; the value is the same),
    /// so that adding sample times to it stays in samples.
    public static let zero = CMTime(value: 0, timescale: Int32(CMTime.samplesPerSecond))

    /// A time that is no time: timescale 0.
    public static let invalid = CMTime(value: 0, timescale: 0)

    /// Whether the timescale is positive.
    public var isValid: Bool { timescale > 0 }

    /// The sum. Exact when both have the same timescale; otherwise computed in the least common multiple of the
    /// timescales, or, when that or the result overflows, in the larger timescale rounded to nearest.
    public static func + (lhs: CMTime, rhs: CMTime) -> CMTime {
        combine(lhs, rhs) { $0.addingReportingOverflow($1) }
    }

    /// The difference, with the same timescale rules as `+`.
    public static func - (lhs: CMTime, rhs: CMTime) -> CMTime {
        combine(lhs, rhs) { $0.subtractingReportingOverflow($1) }
    }

    /// Numeric order; invalid times come after every valid time.
    public static func < (lhs: CMTime, rhs: CMTime) -> Bool {
        switch (lhs.isValid, rhs.isValid) {
        case (false, _): return false
        case (true, false): return true
        case (true, true): return compare(lhs, rhs) < 0
        }
    }

    /// Numeric equality: `1/2 == 8000/16000`; all invalid times are equal.
    public static func == (lhs: CMTime, rhs: CMTime) -> Bool {
        switch (lhs.isValid, rhs.isValid) {
        case (false, false): return true
        case (true, true): return compare(lhs, rhs) == 0
        default: return false
        }
    }

    /// Hashes the reduced fraction, so that equal times hash alike.
    public func hash(into hasher: inout Hasher) {
        guard isValid else {
            hasher.combine(0 as Int32)
            return
        }
        let divisor = Self.gcd(value.magnitude, UInt64(timescale))
        hasher.combine(value / Int64(divisor))
        hasher.combine(Int64(timescale) / Int64(divisor))
    }

    /// `"1.5 s (24000/16000)"`, or `"invalid"`.
    public var description: String {
        isValid ? "\(seconds) s (\(value)/\(timescale))" : "invalid"
    }
}

// MARK: - Samples

extension CMTime {
    /// The engine's sample rate: session times count samples at 16 kHz.
    package static let samplesPerSecond = 16_000

    /// The start of sample `sample` of the session's 16 kHz audio (timescale 16000, exact).
    package init(sample: Int) {
        self.init(value: Int64(sample), timescale: Int32(Self.samplesPerSecond))
    }

    /// The index of the 16 kHz sample nearest to this time (halves round away from zero); 0 for an invalid time.
    package var sample: Int {
        guard isValid else { return 0 }
        if Int(timescale) == Self.samplesPerSecond { return Int(value) }
        return Int((seconds * Double(Self.samplesPerSecond)).rounded())
    }
}

// MARK: - Arithmetic

extension CMTime {
    /// Sign of `lhs - rhs` for two valid times, compared exactly through full-width products.
    fileprivate static func compare(_ lhs: CMTime, _ rhs: CMTime) -> Int {
        if lhs.timescale == rhs.timescale { return lhs.value < rhs.value ? -1 : (lhs.value == rhs.value ? 0 : 1) }
        let left = lhs.value.multipliedFullWidth(by: Int64(rhs.timescale))
        let right = rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
        if left.high != right.high { return left.high < right.high ? -1 : 1 }
        if left.low != right.low { return left.low < right.low ? -1 : 1 }
        return 0
    }

    fileprivate static func combine(
        _ lhs: CMTime, _ rhs: CMTime, _ checked: (Int64, Int64) -> (partialValue: Int64, overflow: Bool)
    ) -> CMTime {
        guard lhs.isValid, rhs.isValid else { return .invalid }
        if lhs.timescale == rhs.timescale {
            let result = checked(lhs.value, rhs.value)
            return result.overflow ? .invalid : CMTime(value: result.partialValue, timescale: lhs.timescale)
        }
        let (a, b) = (Int64(lhs.timescale), Int64(rhs.timescale))
        let lcm = a / Int64(gcd(UInt64(a), UInt64(b))) * b
        if lcm <= Int64(Int32.max) {
            let left = lhs.value.multipliedReportingOverflow(by: lcm / a)
            let right = rhs.value.multipliedReportingOverflow(by: lcm / b)
            if !left.overflow, !right.overflow {
                let result = checked(left.partialValue, right.partialValue)
                if !result.overflow { return CMTime(value: result.partialValue, timescale: Int32(lcm)) }
            }
        }
        let timescale = max(lhs.timescale, rhs.timescale)
        let left = CMTime(seconds: lhs.seconds, preferredTimescale: timescale)
        let right = CMTime(seconds: rhs.seconds, preferredTimescale: timescale)
        guard left.isValid, right.isValid else { return .invalid }
        let result = checked(left.value, right.value)
        return result.overflow ? .invalid : CMTime(value: result.partialValue, timescale: timescale)
    }

    fileprivate static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
