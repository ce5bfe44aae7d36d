import Dispatch

/// A moment in audio: a sample time at a sample rate, a host time, or both.
///
/// ```swift
/// let time = AVAudioTime(sampleTime: 16_000, atRate: 16_000)   // one second into the stream
/// ```
///
/// Immutable, hence `Sendable`.
///
/// Difference from Apple's: host time counts nanoseconds of the system's monotonic clock (`DispatchTime`'s uptime),
/// where Apple's counts `mach_absolute_time` ticks; `hostTime(forSeconds:)` and `seconds(forHostTime:)` convert as on
/// Apple, so code that uses them is unaffected.
public final class AVAudioTime: NSObject, Sendable {
    /// The time in sample frames; meaningful when `isSampleTimeValid`.
    public let sampleTime: AVAudioFramePosition
    /// The rate `sampleTime` counts in, in hertz; meaningful when `isSampleTimeValid`.
    public let sampleRate: Double
    /// The time on the host clock, in nanoseconds; meaningful when `isHostTimeValid`.
    public let hostTime: UInt64
    /// Whether the time has a sample time.
    public let isSampleTimeValid: Bool
    /// Whether the time has a host time.
    public let isHostTimeValid: Bool

    private init(sampleTime: AVAudioFramePosition, sampleRate: Double, hostTime: UInt64, hasSampleTime: Bool, hasHostTime: Bool) {
        self.sampleTime = sampleTime
        self.sampleRate = sampleRate
        self.hostTime = hostTime
        isSampleTimeValid = hasSampleTime
        isHostTimeValid = hasHostTime
        super.init()
    }

    /// A time of `sampleTime` frames at `sampleRate` hertz, with no host time.
    public convenience init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        self.init(sampleTime: sampleTime, sampleRate: sampleRate, hostTime: 0, hasSampleTime: true, hasHostTime: false)
    }

    /// A time on the host clock (nanoseconds, see the type's note), with no sample time.
    public convenience init(hostTime: UInt64) {
        self.init(sampleTime: 0, sampleRate: 0, hostTime: hostTime, hasSampleTime: false, hasHostTime: true)
    }

    /// A time with both a host time and a sample time.
    public convenience init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        self.init(sampleTime: sampleTime, sampleRate: sampleRate, hostTime: hostTime, hasSampleTime: true, hasHostTime: true)
    }

    /// The host time `seconds` seconds long.
    public static func hostTime(forSeconds seconds: TimeInterval) -> UInt64 {
        UInt64(max(seconds, 0) * 1e9)
    }

    /// The seconds a host time stands for.
    public static func seconds(forHostTime hostTime: UInt64) -> TimeInterval {
        Double(hostTime) / 1e9
    }

    /// For example "<AVAudioTime: sample 16000 at 16000 Hz, host 123456789>".
    public override var description: String {
        var parts: [String] = []
        if isSampleTimeValid { parts.append("sample \(sampleTime) at \(sampleRate) Hz") }
        if isHostTimeValid { parts.append("host \(hostTime)") }
        return "<AVAudioTime: \(parts.isEmpty ? "invalid" : parts.joined(separator: ", "))>"
    }

    /// The host clock now.
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}
