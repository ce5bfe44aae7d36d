/// A linear PCM audio format: sample rate, channel count, sample type and layout.
///
/// ```swift
/// let format = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!   // float32, deinterleaved
/// let wav = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
/// ```
///
/// Immutable, hence `Sendable`. Two formats are equal (`==`, `isEqual(_:)`) when every field is equal.
///
/// Differences from Apple's: only linear PCM is described (no compressed formats, no `AVAudioChannelLayout`,
/// no `streamDescription`), so more than two channels need no layout: `init(standardFormatWithSampleRate:channels:)`
/// accepts any channel count, where Apple's returns nil above two without a layout. Big-endian samples are not
/// represented.
public final class AVAudioFormat: NSObject, Sendable {
    /// Frames per second, in hertz.
    public let sampleRate: Double
    /// Channels per frame.
    public let channelCount: AVAudioChannelCount
    /// The sample type, or `.otherFormat` for a file's 8- or 24-bit integer samples.
    public let commonFormat: AVAudioCommonFormat
    /// Whether the channels' samples alternate in one block (true) or lie in one block per channel (false).
    public let isInterleaved: Bool
    /// Bits per sample: 16 or 32 for the common formats, 8 or 24 for a file's other integer formats.
    let bitsPerChannel: Int
    /// Whether samples are IEEE floats.
    let isFloat: Bool

    /// The designated initializer; the public ones check their arguments first. A rate of 0 with 0 channels is the
    /// format of a device that does not exist, as Apple's engine reports it.
    init(sampleRate: Double, channelCount: AVAudioChannelCount, commonFormat: AVAudioCommonFormat, isInterleaved: Bool,
         bitsPerChannel: Int? = nil, isFloat: Bool? = nil) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.commonFormat = commonFormat
        self.isInterleaved = isInterleaved
        self.bitsPerChannel = bitsPerChannel ?? commonFormat.bytesPerSample * 8
        self.isFloat = isFloat ?? (commonFormat == .pcmFormatFloat32 || commonFormat == .pcmFormatFloat64)
        super.init()
    }

    /// A format of `format` samples at `sampleRate` hertz, `channels` per frame, interleaved or one block per channel.
    ///
    /// Returns nil for `.otherFormat`, no channels, or a sample rate that is not a positive number.
    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount,
                             interleaved: Bool) {
        guard format != .otherFormat, channels > 0, sampleRate > 0, sampleRate.isFinite else { return nil }
        self.init(sampleRate: sampleRate, channelCount: channels, commonFormat: format, isInterleaved: interleaved)
    }

    /// The standard format: 32-bit float, one block per channel (deinterleaved). Nil as for
    /// `init(commonFormat:sampleRate:channels:interleaved:)`; any channel count is accepted (see the type's note).
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// The format that `settings` describes, with the keys of `AVAudioFormat.settings` (`AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`, `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`, `AVLinearPCMIsNonInterleaved`, …).
    ///
    /// The sample rate and channel count are required. Bit depth defaults to 32 for floats and 16 for integers;
    /// interleaved is the default. Returns nil for another `AVFormatIDKey` than `kAudioFormatLinearPCM` (Linux has
    /// no encoders here), big-endian samples, or a depth other than 16, 24, 32 (integers) or 32, 64 (floats).
    public convenience init?(settings: [String: Any]) {
        guard let pcm = PCMSettings(settings) else { return nil }
        self.init(sampleRate: pcm.sampleRate, channelCount: pcm.channelCount, commonFormat: pcm.commonFormat,
                  isInterleaved: pcm.isInterleaved, bitsPerChannel: pcm.bitDepth, isFloat: pcm.isFloat)
    }

    /// Whether this is the standard format: 32-bit float, deinterleaved.
    public var isStandard: Bool {
        commonFormat == .pcmFormatFloat32 && !isInterleaved
    }

    /// The format as a settings dictionary: `AVFormatIDKey` (`kAudioFormatLinearPCM`), `AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`, `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`, `AVLinearPCMIsBigEndianKey`
    /// (always false) and `AVLinearPCMIsNonInterleaved`. Values are `NSNumber`s, so `as? Double`, `as? Int` and
    /// `as? Bool` all work on them, as on Apple's.
    public var settings: [String: Any] {
        [
            AVFormatIDKey: NSNumber(value: kAudioFormatLinearPCM),
            AVSampleRateKey: NSNumber(value: sampleRate),
            AVNumberOfChannelsKey: NSNumber(value: Int(channelCount)),
            AVLinearPCMBitDepthKey: NSNumber(value: bitsPerChannel),
            AVLinearPCMIsFloatKey: NSNumber(value: isFloat),
            AVLinearPCMIsBigEndianKey: NSNumber(value: false),
            AVLinearPCMIsNonInterleaved: NSNumber(value: !isInterleaved),
        ]
    }

    /// Equal when the sample rate, channel count, sample type and layout are all equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        return sampleRate == other.sampleRate && channelCount == other.channelCount && commonFormat == other.commonFormat
            && isInterleaved == other.isInterleaved && bitsPerChannel == other.bitsPerChannel && isFloat == other.isFloat
    }

    /// A hash consistent with `isEqual(_:)`.
    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(sampleRate)
        hasher.combine(channelCount)
        hasher.combine(commonFormat)
        hasher.combine(isInterleaved)
        hasher.combine(bitsPerChannel)
        return hasher.finalize()
    }

    /// For example "<AVAudioFormat: 2 ch, 48000 Hz, Int16, interleaved>".
    public override var description: String {
        let rate = sampleRate == sampleRate.rounded() ? String(Int(sampleRate)) : String(sampleRate)
        var type = commonFormat.name
        if commonFormat == .otherFormat { type = "\(bitsPerChannel)-bit \(isFloat ? "float" : "integer")" }
        let layout = channelCount > 1 ? (isInterleaved ? ", interleaved" : ", deinterleaved") : ""
        return "<AVAudioFormat: \(channelCount) ch, \(rate) Hz, \(type)\(layout)>"
    }

    /// Whether buffers of `other` are laid out like buffers of this format: the same rate, channel count and sample
    /// type, and, with more than one channel, the same interleaving (a mono buffer is the same either way).
    func isCompatible(with other: AVAudioFormat) -> Bool {
        sampleRate == other.sampleRate && channelCount == other.channelCount && commonFormat == other.commonFormat
            && (channelCount == 1 || isInterleaved == other.isInterleaved)
    }
}
