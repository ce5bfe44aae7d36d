import Synchronization

/// The block a tap calls with each buffer of a node's output and the time of its first frame. It runs on a thread of
/// the engine's (never the main thread, never Swift's cooperative pool), as on Apple: form it outside `@MainActor`
/// code, or mark it `@Sendable`, and hop to the main actor for UI work.
public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void

/// A block called when scheduled audio has been played (or dropped by `stop()`).
public typealias AVAudioNodeCompletionHandler = @Sendable () -> Void

/// A node of an `AVAudioEngine`: the input, the output, the main mixer, or a player.
///
/// A node's bus formats, its tap, and its last render time are here; `AVAudioEngine` attaches and connects nodes.
/// Not thread-safe, as on Apple: set a node up from one thread; its tap block runs on the engine's own thread.
///
/// Differences from Apple's: taps deliver audio on the input node (the microphone) and on player nodes (what they
/// play); a tap on the main mixer or the output node is kept but gets no buffers, since the sound server, not the
/// engine, mixes the players (see `AVAudioEngine`). One tap per bus, as on Apple; installing a second one replaces the first where
/// Apple's stops the program.
public class AVAudioNode: NSObject {
    /// The engine the node is attached to, or nil.
    public internal(set) weak var engine: AVAudioEngine?
    /// The node's tap on bus 0, shared with the thread that delivers to it.
    let tapSlot: TapSlot
    /// Formats set by `AVAudioEngine.connect` or by a tap, per bus.
    var connectedInputFormats: [AVAudioNodeBus: AVAudioFormat] = [:]
    var connectedOutputFormats: [AVAudioNodeBus: AVAudioFormat] = [:]

    override init() {
        tapSlot = TapSlot()
        super.init()
    }

    /// A node whose tap is in `tapSlot`, which its render state shares.
    init(tapSlot: TapSlot) {
        self.tapSlot = tapSlot
        super.init()
    }

    /// Input busses: 1 (a player has none).
    public var numberOfInputs: Int { 1 }

    /// Output busses: 1 (the output node has none).
    public var numberOfOutputs: Int { 1 }

    /// The format of input bus `bus`: the format it was connected with, else the node's default.
    public func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        connectedInputFormats[bus] ?? defaultFormat
    }

    /// The format of output bus `bus`: the format it was connected with (or its tap's), else the node's default.
    public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        connectedOutputFormats[bus] ?? defaultFormat
    }

    /// What a bus has before anything sets its format: the standard format at 44.1 kHz, stereo, as on Apple.
    var defaultFormat: AVAudioFormat { Self.standardFormat }

    /// The standard format at 44.1 kHz, stereo.
    static let standardFormat = AVAudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .pcmFormatFloat32, isInterleaved: false)

    /// Installs a tap on output bus `bus` that calls `tapBlock` with each `bufferSize` frames of the node's output, in
    /// `format` (nil: the bus's format). A format given becomes the bus's format, as on Apple; on the input node it may
    /// have any rate and channel count (the sound server converts), where Apple's requires the hardware's rate.
    /// `bufferSize` is honoured exactly (0 means 100 ms); Apple treats it as a request.
    public func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                           block tapBlock: @escaping AVAudioNodeTapBlock) {
        let tapFormat = format ?? outputFormat(forBus: bus)
        if let format {
            connectedOutputFormats[bus] = format
            outputFormatChanged()
        }
        let frames = bufferSize > 0 ? Int(bufferSize) : max(1, Int(tapFormat.sampleRate / 10))
        tapSlot.install(Tap(format: tapFormat, frames: frames, block: TapBlock(call: tapBlock)))
        tapChanged()
    }

    /// Removes the tap on bus `bus`, if any. Buffers already on their way may still arrive.
    public func removeTap(onBus bus: AVAudioNodeBus) {
        tapSlot.install(nil)
        tapChanged()
    }

    /// When the node last rendered, while the engine runs; nil otherwise.
    public var lastRenderTime: AVAudioTime? { nil }

    /// Clears the node's state (a player forgets what was scheduled).
    public func reset() {}

    /// Called after a tap was installed or removed.
    func tapChanged() {}

    /// Called after the format of an output bus was set (by a connection or a tap).
    func outputFormatChanged() {}
}

/// A tap block, which Apple's API declares without `Sendable`, carried to the thread that calls it, as Apple's audio
/// thread does.
struct TapBlock: @unchecked Sendable {
    let call: AVAudioNodeTapBlock
}

/// A tap as installed: the format and size of its buffers and the block to call.
struct Tap: Sendable {
    let format: AVAudioFormat
    let frames: Int
    let block: TapBlock
}

/// A node's current tap, read by the thread that delivers audio; each install gets a new generation, so a delivery
/// thread can tell that the tap it cut buffers for was replaced.
final class TapSlot: Sendable {
    private let state = Mutex<(tap: Tap?, generation: Int)>((nil, 0))

    func install(_ tap: Tap?) {
        state.withLock { $0 = (tap, $0.generation + 1) }
    }

    /// The tap and its generation.
    var current: (tap: Tap?, generation: Int) {
        state.withLock { $0 }
    }
}

/// Cuts a stream of interleaved `Float` frames into the tap's buffers of exactly `tap.frames` frames in `tap.format`,
/// and calls the tap with each, timed by the sample time of its first frame. Used from one thread at a time.
final class TapFeeder {
    let tap: Tap
    let generation: Int
    private var pending: [Float] = []
    private var pendingStart: AVAudioFramePosition = 0
    /// A frame's sample time and host time, to time the buffers by.
    private var anchor: (sample: AVAudioFramePosition, host: UInt64) = (0, 0)

    init(tap: Tap, generation: Int) {
        self.tap = tap
        self.generation = generation
    }

    /// Adds frames whose first one has `sampleTime` and was heard at `hostTime`; calls the tap for each full buffer.
    func feed(_ interleaved: [Float], sampleTime: AVAudioFramePosition, hostTime: UInt64) {
        let channels = Int(tap.format.channelCount)
        if pending.isEmpty { pendingStart = sampleTime }
        anchor = (sampleTime, hostTime)
        pending += interleaved
        var used = 0
        while pending.count - used >= tap.frames * channels {
            guard let buffer = AVAudioPCMBuffer(pcmFormat: tap.format, frameCapacity: AVAudioFrameCount(tap.frames)) else { return }
            buffer.storeInterleaved(Array(pending[used..<(used + tap.frames * channels)]), at: 0)
            buffer.frameLength = AVAudioFrameCount(tap.frames)
            tap.block.call(buffer, time(of: pendingStart))
            used += tap.frames * channels
            pendingStart += AVAudioFramePosition(tap.frames)
        }
        pending.removeFirst(used)
    }

    /// The time of the frame at `sampleTime`, its host time extrapolated from the anchor.
    private func time(of sampleTime: AVAudioFramePosition) -> AVAudioTime {
        let rate = tap.format.sampleRate
        let offset = Double(sampleTime - anchor.sample) / rate * 1e9
        let host = UInt64(max(0, Double(anchor.host) + offset))
        return AVAudioTime(hostTime: host, sampleTime: sampleTime, atRate: rate)
    }
}

/// A flag that threads share: whether a capture or a clock is still wanted.
final class ActiveFlag: Sendable {
    private let value = Atomic<Bool>(true)

    var isActive: Bool { value.load(ordering: .acquiring) }

    func clear() {
        value.store(false, ordering: .releasing)
    }
}
