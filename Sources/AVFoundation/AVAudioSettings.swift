/// The settings key of the data format: an `AudioFormatID` such as `kAudioFormatLinearPCM`.
public let AVFormatIDKey = "AVFormatIDKey"
/// The settings key of the sample rate, in hertz (a floating-point number).
public let AVSampleRateKey = "AVSampleRateKey"
/// The settings key of the channel count (an integer).
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
/// The settings key of linear PCM's bits per sample: 16, 24 or 32 (an integer).
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
/// The settings key saying whether linear PCM samples are floats (a Boolean).
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
/// The settings key saying whether linear PCM samples are big-endian (a Boolean; only false is supported).
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
/// The settings key saying whether linear PCM channels are in separate blocks (a Boolean).
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"

/// A linear PCM format read from a settings dictionary.
struct PCMSettings {
    var sampleRate: Double
    var channelCount: AVAudioChannelCount
    var bitDepth: Int
    var isFloat: Bool
    var isInterleaved: Bool

    /// The sample type buffers of this format have, or `.otherFormat` for 24-bit integers.
    var commonFormat: AVAudioCommonFormat {
        switch (isFloat, bitDepth) {
        case (true, 32): .pcmFormatFloat32
        case (true, 64): .pcmFormatFloat64
        case (false, 16): .pcmFormatInt16
        case (false, 32): .pcmFormatInt32
        default: .otherFormat
        }
    }

    /// The format `settings` describe; nil when it is not linear PCM this module can store (see
    /// `AVAudioFormat.init(settings:)`).
    init?(_ settings: [String: Any]) {
        guard Self.problem(in: settings) == nil else { return nil }
        let isFloat = Self.number(settings[AVLinearPCMIsFloatKey])?.boolValue ?? false
        sampleRate = Self.number(settings[AVSampleRateKey])!.doubleValue
        channelCount = Self.number(settings[AVNumberOfChannelsKey])!.uint32Value
        bitDepth = Self.number(settings[AVLinearPCMBitDepthKey])?.intValue ?? (isFloat ? 32 : 16)
        self.isFloat = isFloat
        isInterleaved = !(Self.number(settings[AVLinearPCMIsNonInterleaved])?.boolValue ?? false)
    }

    /// Why `settings` describe no format this module can store, in a sentence; nil when they do.
    static func problem(in settings: [String: Any]) -> String? {
        if let id = settings[AVFormatIDKey] {
            guard number(id)?.uint32Value == kAudioFormatLinearPCM else {
                return "AVFormatIDKey is \(formatName(id)); on Linux only linear PCM (kAudioFormatLinearPCM) is written."
            }
        }
        guard let rate = number(settings[AVSampleRateKey])?.doubleValue, rate > 0, rate.isFinite, rate <= 4_294_967_295 else {
            return "AVSampleRateKey must be a positive sample rate in hertz."
        }
        guard let channels = number(settings[AVNumberOfChannelsKey])?.intValue, (1...Int(UInt16.max)).contains(channels) else {
            return "AVNumberOfChannelsKey must be a channel count of at least 1."
        }
        guard number(settings[AVLinearPCMIsBigEndianKey])?.boolValue != true else {
            return "Big-endian samples (AVLinearPCMIsBigEndianKey) are not supported; leave the key out or set it to false."
        }
        let isFloat = number(settings[AVLinearPCMIsFloatKey])?.boolValue ?? false
        let depth = number(settings[AVLinearPCMBitDepthKey])?.intValue ?? (isFloat ? 32 : 16)
        guard isFloat ? [32, 64].contains(depth) : [16, 24, 32].contains(depth) else {
            return "AVLinearPCMBitDepthKey \(depth) is not supported \(isFloat ? "for floats (32 or 64)" : "for integers (16, 24 or 32)")."
        }
        return nil
    }

    /// A settings value as a number: every Swift number, `Bool` and `NSNumber` is one.
    static func number(_ value: Any?) -> NSNumber? {
        value.flatMap { $0 as? NSNumber }
    }

    /// A format ID as its four characters when it has them ("aac "), else as a number.
    private static func formatName(_ value: Any) -> String {
        guard let code = number(value)?.uint32Value else { return "\(value)" }
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> $0) }
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return String(code) }
        return "'\(String(decoding: bytes, as: UTF8.self))'"
    }
}
