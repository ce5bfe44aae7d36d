/// How a scheduled buffer plays.
public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: UInt

    /// Options with the given bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The buffer plays again and again, until a buffer that interrupts it or `stop()`.
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 0)
    /// The buffer replaces everything scheduled, at once.
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 1)
    /// The buffer replaces everything scheduled after the buffer playing now, which stops looping at its end.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 2)
}

/// A node that plays scheduled buffers and files, in the engine's render time.
///
/// ```swift
/// let player = AVAudioPlayerNode()
/// engine.attach(player)
/// engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
/// player.scheduleFile(file, at: nil) { print("played") }
/// try engine.start()
/// player.play()
/// ```
///
/// Buffers play one after the other at the rate of the player's output format (the format it was connected with;
/// schedule buffers in that format, as Apple requires); a mono buffer fills every channel. Completion handlers are
/// called on the engine's render thread once a buffer's last frame has been rendered, or at `stop()`.
///
/// Difference from Apple's: the engine renders players on its own clock, in real time; a player whose connections
/// lead to the output node plays to the sound server's default output on a stream of its own, about 0.5 s after it
/// renders (see `AVAudioEngine`).
/// `scheduleFile` reads the whole file when called.
public class AVAudioPlayerNode: AVAudioNode {
    let core: PlayerCore

    /// A player with nothing scheduled; attach it to an engine and connect it.
    public override init() {
        let slot = TapSlot()
        core = PlayerCore(format: AVAudioNode.standardFormat, tapSlot: slot)
        super.init(tapSlot: slot)
    }

    /// A player has no input bus.
    public override var numberOfInputs: Int { 0 }

    /// Whether the player is playing (from `play()` until `pause()` or `stop()`).
    public var isPlaying: Bool { core.isPlaying }

    /// When the player last rendered, in node time, while the engine runs; nil otherwise.
    public override var lastRenderTime: AVAudioTime? { core.lastRenderTime }

    /// Schedules `buffer` to play after what is already scheduled.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    /// Schedules `buffer` to play at player time `when` (nil: after what is already scheduled), as `options` say.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let item = PlayerCore.Item(buffer: buffer, loops: options.contains(.loops), startAt: playerSampleTime(of: when),
                                   completion: completionHandler)
        core.schedule(item, options: options).forEach { $0() }
    }

    /// Schedules the whole of `file` to play at player time `when` (nil: after what is already scheduled). The file is
    /// read now, from its start, in its processing format; its `framePosition` is left as it was. A file that cannot
    /// be read plays nothing, and its completion handler is called at once.
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let position = file.framePosition
        defer { file.framePosition = position }
        file.framePosition = 0
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(clamping: file.length)),
              (try? file.read(into: buffer)) != nil
        else {
            completionHandler?()
            return
        }
        scheduleBuffer(buffer, at: when, options: [], completionHandler: completionHandler)
    }

    /// Starts or resumes playing. Before the engine starts, playing begins when it does.
    public func play() {
        core.play()
    }

    /// Pauses; `play()` resumes where it paused.
    public func pause() {
        core.pause()
    }

    /// Stops, drops everything scheduled (calling their completion handlers) and resets the player time to 0.
    public func stop() {
        core.stop().forEach { $0() }
    }

    /// Stops and drops everything scheduled.
    public override func reset() {
        stop()
    }

    /// The player time (frames since `play()`, not counting pauses) of a node time; nil while not playing.
    public func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        core.playerTime(forNodeTime: nodeTime)
    }

    override func outputFormatChanged() {
        core.setFormat(outputFormat(forBus: 0))
    }

    /// A scheduling time as a sample time at the player's rate; nil for none.
    private func playerSampleTime(of when: AVAudioTime?) -> AVAudioFramePosition? {
        guard let when else { return nil }
        let rate = outputFormat(forBus: 0).sampleRate
        if when.isSampleTimeValid {
            return when.sampleRate == rate ? when.sampleTime
                : AVAudioFramePosition((Double(when.sampleTime) * rate / when.sampleRate).rounded())
        }
        return core.playerTime(forNodeTime: when)?.sampleTime
    }
}
