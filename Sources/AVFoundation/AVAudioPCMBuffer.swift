/// The base class of audio buffers: a format and the memory that holds samples in it.
///
/// Only `AVAudioPCMBuffer` exists on Linux (no compressed buffers). Apple's `audioBufferList` is not offered:
/// use `AVAudioPCMBuffer`'s channel data. `@unchecked Sendable` as `AVAudioPCMBuffer` explains.
public class AVAudioBuffer: NSObject, @unchecked Sendable {
    /// The format of the samples.
    public let format: AVAudioFormat

    init(format: AVAudioFormat) {
        self.format = format
        super.init()
    }
}

/// A buffer of linear PCM audio in one of the common formats, with memory for `frameCapacity` frames of which the
/// first `frameLength` are valid.
///
/// ```swift
/// let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1_600)!
/// buffer.frameLength = 1_600
/// let left = buffer.floatChannelData![0]      // deinterleaved: one pointer per channel
/// for frame in 0..<Int(buffer.frameLength) { left[frame * buffer.stride] = 0 }
/// ```
///
/// The buffer owns its memory (zeroed when made) and frees it when released. Deinterleaved formats have one pointer
/// per channel and `stride` 1; interleaved formats have one pointer, to frames of `channelCount` samples, and
/// `stride` equal to the channel count.
///
/// - Note: `@unchecked Sendable`: Apple's buffers are handed from the audio thread to tasks (a tap's buffers go into
///   `AnalyzerInput`, which is `@unchecked Sendable`), and so are these. The buffer itself does no locking: write it
///   from one place, then hand it over and only read it.
public final class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    /// Frames the buffer has room for.
    public let frameCapacity: AVAudioFrameCount
    private var validFrames: AVAudioFrameCount = 0
    /// The samples of every channel, zeroed; `planeCount` blocks of `planeSampleCount` samples.
    private let samples: UnsafeMutableRawPointer
    /// `planeCount` pointers into `samples`, bound to the pointer type of the format's sample type.
    private let planePointers: UnsafeMutableRawPointer
    private let planeCount: Int
    private let planeSampleCount: Int

    /// A buffer for `frameCapacity` frames of `format`; nil when the format is not one of the common formats
    /// (`.otherFormat`), has no channels, or the memory cannot be had.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let channels = Int(format.channelCount)
        let bytes = format.commonFormat.bytesPerSample
        guard bytes > 0, channels > 0 else { return nil }
        planeCount = format.isInterleaved ? 1 : channels
        planeSampleCount = Int(frameCapacity) * (format.isInterleaved ? channels : 1)
        let (total, overflow) = (planeCount * planeSampleCount).multipliedReportingOverflow(by: bytes)
        guard !overflow, total < Int(Int32.max) * 16 else { return nil }
        self.frameCapacity = frameCapacity
        samples = .allocate(byteCount: max(total, bytes), alignment: 16)
        samples.initializeMemory(as: UInt8.self, repeating: 0, count: max(total, bytes))
        planePointers = .allocate(byteCount: planeCount * MemoryLayout<UnsafeRawPointer>.stride,
                                  alignment: MemoryLayout<UnsafeRawPointer>.alignment)
        super.init(format: format)
        switch format.commonFormat {
        case .pcmFormatFloat32: bindPlanes(to: Float.self)
        case .pcmFormatFloat64: bindPlanes(to: Double.self)
        case .pcmFormatInt16: bindPlanes(to: Int16.self)
        case .pcmFormatInt32, .otherFormat: bindPlanes(to: Int32.self)
        }
    }

    deinit {
        samples.deallocate()
        planePointers.deallocate()
    }

    private func bindPlanes<Sample>(to _: Sample.Type) {
        let pointers = planePointers.bindMemory(to: UnsafeMutablePointer<Sample>.self, capacity: planeCount)
        let typed = samples.bindMemory(to: Sample.self, capacity: planeCount * planeSampleCount)
        for plane in 0..<planeCount {
            (pointers + plane).initialize(to: typed + plane * planeSampleCount)
        }
    }

    /// Valid frames, from the start of the buffer; at most `frameCapacity` (more stops the program, as Apple's
    /// raises an exception).
    public var frameLength: AVAudioFrameCount {
        get { validFrames }
        set {
            precondition(newValue <= frameCapacity, "frameLength \(newValue) exceeds the buffer's frameCapacity \(frameCapacity)")
            validFrames = newValue
        }
    }

    /// Samples between one frame's sample of a channel and the next frame's: the channel count when interleaved, else 1.
    public var stride: Int {
        format.isInterleaved ? Int(format.channelCount) : 1
    }

    /// The channels' samples when the format is `.pcmFormatFloat32`, else nil.
    public var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? {
        channelData(.pcmFormatFloat32)
    }

    /// The channels' samples when the format is `.pcmFormatInt16`, else nil.
    public var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? {
        channelData(.pcmFormatInt16)
    }

    /// The channels' samples when the format is `.pcmFormatInt32`, else nil.
    public var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? {
        channelData(.pcmFormatInt32)
    }

    private func channelData<Sample>(_ common: AVAudioCommonFormat) -> UnsafePointer<UnsafeMutablePointer<Sample>>? {
        guard format.commonFormat == common else { return nil }
        return UnsafePointer(planePointers.assumingMemoryBound(to: UnsafeMutablePointer<Sample>.self))
    }

    /// Where channel `channel`'s sample of frame 0 lies; its later frames follow every `stride` samples.
    func firstSample(ofChannel channel: Int) -> UnsafeMutableRawPointer {
        let bytes = format.commonFormat.bytesPerSample
        return format.isInterleaved ? samples + channel * bytes : samples + channel * planeSampleCount * bytes
    }

    /// The bytes of frames `frames` of plane `plane`, for copies between buffers of compatible formats.
    func planeBytes(_ plane: Int, frames: Range<Int>) -> UnsafeMutableRawBufferPointer {
        let frameBytes = format.commonFormat.bytesPerSample * stride
        let start = samples + plane * planeSampleCount * format.commonFormat.bytesPerSample + frames.lowerBound * frameBytes
        return UnsafeMutableRawBufferPointer(start: start, count: frames.count * frameBytes)
    }

    /// Blocks of samples: 1 when interleaved, else one per channel.
    var planes: Int { planeCount }
}
