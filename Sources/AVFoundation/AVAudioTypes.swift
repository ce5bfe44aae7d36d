/// A number of sample frames, as in a buffer's capacity or length.
public typealias AVAudioFrameCount = UInt32

/// A position in a file or stream, in sample frames.
public typealias AVAudioFramePosition = Int64

/// A number of packets; for the linear PCM formats this module handles, a packet is one frame.
public typealias AVAudioPacketCount = UInt32

/// The index of one of a node's input or output busses.
public typealias AVAudioNodeBus = Int

/// A number of audio channels.
public typealias AVAudioChannelCount = UInt32

/// The four-character code of an audio data format, such as `kAudioFormatLinearPCM`.
public typealias AudioFormatID = UInt32

/// Linear PCM, the only data format that files and converters handle on Linux ('lpcm').
public let kAudioFormatLinearPCM: AudioFormatID = 0x6C70_636D

/// How one sample is stored, for the formats buffers can hold.
public enum AVAudioCommonFormat: UInt, Sendable {
    /// Anything else: packed 24-bit integers, 8-bit integers, compressed formats.
    case otherFormat = 0
    /// 32-bit IEEE float, native byte order.
    case pcmFormatFloat32 = 1
    /// 64-bit IEEE float, native byte order.
    case pcmFormatFloat64 = 2
    /// 16-bit signed integer, native byte order.
    case pcmFormatInt16 = 3
    /// 32-bit signed integer, native byte order.
    case pcmFormatInt32 = 4
}

extension AVAudioCommonFormat {
    /// Bytes per sample; 0 for `.otherFormat`.
    var bytesPerSample: Int {
        switch self {
        case .otherFormat: 0
        case .pcmFormatInt16: 2
        case .pcmFormatFloat32, .pcmFormatInt32: 4
        case .pcmFormatFloat64: 8
        }
    }

    /// For `description`: "Float32", "Int16", …
    var name: String {
        switch self {
        case .otherFormat: "other"
        case .pcmFormatFloat32: "Float32"
        case .pcmFormatFloat64: "Float64"
        case .pcmFormatInt16: "Int16"
        case .pcmFormatInt32: "Int32"
        }
    }
}
