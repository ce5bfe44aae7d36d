import AuralAudio
import Synchronization

/// The state of an `AVAudioPlayerNode` that its methods and the engine's render thread share: what is scheduled, whether
/// it plays, and where it is in node time (frames rendered since the engine started) and player time (frames played
/// since `play()`).
final class PlayerCore: Sendable {
    /// A scheduled buffer and how far it has been played.
    struct Item {
        let buffer: AVAudioPCMBuffer
        var offset = 0
        var loops: Bool
        /// The player time it starts at; nil: right after what comes before.
        var startAt: AVAudioFramePosition?
        let completion: AVAudioNodeCompletionHandler?
    }

    private struct State {
        var format: AVAudioFormat
        var items: [Item] = []
        var isPlaying = false
        var nodeTime: AVAudioFramePosition = 0
        var playerTime: AVAudioFramePosition = 0
        /// A host time and the node time rendered by then, from which frames become due.
        var origin: (host: UInt64, nodeTime: AVAudioFramePosition)?
        var lastRender: AVAudioTime?
    }

    private let state: Mutex<State>
    private let tapSlot: TapSlot
    /// The feeder of the node's tap, used only on the render thread.
    private let tapFeeder = FeederHolder()
    /// The playback stream to the default output, while the player reaches the engine's output node.
    private let output = PlayerOutput()

    init(format: AVAudioFormat, tapSlot: TapSlot) {
        state = Mutex(State(format: format))
        self.tapSlot = tapSlot
    }

    /// Renders at `format`'s rate and channel count from now on.
    func setFormat(_ format: AVAudioFormat) {
        state.withLock { $0.format = format }
    }

    var isPlaying: Bool { state.withLock { $0.isPlaying } }

    var lastRenderTime: AVAudioTime? { state.withLock { $0.lastRender } }

    /// Queues `item` as `options` say; returns the completion handlers of the items it interrupted, to call.
    func schedule(_ item: Item, options: AVAudioPlayerNodeBufferOptions) -> [AVAudioNodeCompletionHandler] {
        state.withLock { state in
            var dropped: ArraySlice<Item> = []
            if options.contains(.interrupts) {
                dropped = state.items[...]
                state.items = []
            } else if options.contains(.interruptsAtLoop), !state.items.isEmpty {
                dropped = state.items.dropFirst()
                state.items = [state.items[0]]
                state.items[0].loops = false
            }
            state.items.append(item)
            return dropped.compactMap(\.completion)
        }
    }

    func play() {
        state.withLock { $0.isPlaying = true }
    }

    func pause() {
        state.withLock { $0.isPlaying = false }
    }

    /// Stops playing and drops everything scheduled; returns their completion handlers, to call.
    func stop() -> [AVAudioNodeCompletionHandler] {
        state.withLock { state in
            defer { (state.items, state.isPlaying, state.playerTime) = ([], false, 0) }
            return state.items.compactMap(\.completion)
        }
    }

    /// The engine stopped: rendering resumes from the next start without catching up, and the playback stream closes.
    func halt() {
        state.withLock { ($0.origin, $0.lastRender) = (nil, nil) }
        output.close()
    }

    /// Whether what the player renders reaches the engine's output node (and so the loudspeaker).
    func setRoutedToOutput(_ routed: Bool) {
        output.setWanted(routed)
    }

    /// The player time of `nodeTime`, while playing; nil otherwise.
    func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        state.withLock { state in
            guard state.isPlaying else { return nil }
            let rate = state.format.sampleRate
            let node: AVAudioFramePosition
            if nodeTime.isSampleTimeValid {
                node = nodeTime.sampleRate == rate ? nodeTime.sampleTime
                    : AVAudioFramePosition((Double(nodeTime.sampleTime) * rate / nodeTime.sampleRate).rounded())
            } else if let origin = state.origin {
                let seconds = (Double(nodeTime.hostTime) - Double(origin.host)) / 1e9
                node = origin.nodeTime + AVAudioFramePosition((seconds * rate).rounded())
            } else {
                return nil
            }
            let player = node - (state.nodeTime - state.playerTime)
            return nodeTime.isHostTimeValid ? AVAudioTime(hostTime: nodeTime.hostTime, sampleTime: player, atRate: rate)
                : AVAudioTime(sampleTime: player, atRate: rate)
        }
    }

    /// Renders the frames due by host time `now`, feeds them to the node's tap, and calls the completion handlers of
    /// the buffers finished. Called on the render thread.
    func render(until now: UInt64) {
        let rendered = state.withLock { state -> (samples: [Float], start: AVAudioFramePosition, format: AVAudioFormat,
                                                  finished: [AVAudioNodeCompletionHandler])? in
            let rate = state.format.sampleRate
            guard rate > 0, state.format.channelCount > 0 else { return nil }
            let origin = state.origin ?? (now, state.nodeTime)
            state.origin = origin
            let due = origin.nodeTime + AVAudioFramePosition(Double(now - origin.host) / 1e9 * rate) - state.nodeTime
            guard due > 0 else { return nil }
            let start = state.nodeTime
            var samples = [Float](repeating: 0, count: Int(due) * Int(state.format.channelCount))
            var finished: [AVAudioNodeCompletionHandler] = []
            if state.isPlaying {
                finished = Self.fill(&samples, channels: Int(state.format.channelCount), from: &state.items, at: state.playerTime)
                state.playerTime += due
            }
            state.nodeTime += due
            state.lastRender = AVAudioTime(hostTime: now, sampleTime: state.nodeTime, atRate: rate)
            return (samples, start, state.format, finished)
        }
        guard let rendered else { return }
        let frames = rendered.samples.count / Int(rendered.format.channelCount)
        let startHost = now - min(now, UInt64(Double(frames) / rendered.format.sampleRate * 1e9))
        tapFeeder.feed(rendered.samples, sampleTime: rendered.start, hostTime: startHost, slot: tapSlot)
        output.play(rendered.samples, format: rendered.format)
        rendered.finished.forEach { $0() }
    }

    /// Copies the scheduled items' frames into `samples` (interleaved, `channels` per frame), from player time
    /// `playerTime` on, leaving silence where nothing plays; returns the completion handlers of the items finished.
    private static func fill(_ samples: inout [Float], channels: Int, from items: inout [Item],
                             at playerTime: AVAudioFramePosition) -> [AVAudioNodeCompletionHandler] {
        let frames = samples.count / channels
        var filled = 0
        var finished: [AVAudioNodeCompletionHandler] = []
        while filled < frames, var item = items.first {
            if let startAt = item.startAt, startAt > playerTime + AVAudioFramePosition(filled) {
                filled += Int(min(startAt - playerTime - AVAudioFramePosition(filled), AVAudioFramePosition(frames - filled)))
                continue
            }
            let length = Int(item.buffer.frameLength)
            let count = min(length - item.offset, frames - filled)
            copy(item.buffer, frames: item.offset..<(item.offset + count), into: &samples, at: filled, channels: channels)
            item.offset += count
            filled += count
            if item.offset < length {
                items[0] = item
            } else if item.loops, length > 0 {
                item.offset = 0
                items[0] = item
            } else {
                items.removeFirst()
                if let completion = item.completion { finished.append(completion) }
            }
        }
        return finished
    }

    /// Copies a buffer's frames into interleaved `samples` at frame `frame`: channel to channel, a mono buffer to every
    /// channel, and silence for channels the buffer does not have.
    private static func copy(_ buffer: AVAudioPCMBuffer, frames: Range<Int>, into samples: inout [Float], at frame: Int,
                             channels: Int) {
        let sourceChannels = Int(buffer.format.channelCount)
        samples.withUnsafeMutableBufferPointer { target in
            for channel in 0..<channels {
                let source = sourceChannels == 1 ? 0 : channel
                guard source < sourceChannels, let base = target.baseAddress else { continue }
                buffer.load(channel: source, from: frames.lowerBound, count: frames.count, into: base + frame * channels + channel,
                            destinationStride: channels)
            }
        }
    }
}

/// The feeder of a player's tap, touched only on the render thread; a new one is made when the tap changes.
private final class FeederHolder: @unchecked Sendable {
    private var feeder: TapFeeder?

    func feed(_ samples: [Float], sampleTime: AVAudioFramePosition, hostTime: UInt64, slot: TapSlot) {
        let current = slot.current
        guard let tap = current.tap else {
            feeder = nil
            return
        }
        if feeder?.generation != current.generation { feeder = TapFeeder(tap: tap, generation: current.generation) }
        feeder?.feed(samples, sampleTime: sampleTime, hostTime: hostTime)
    }
}

/// A player's playback stream to the default output: opened on the render thread when a player that reaches the output
/// node first renders, in the player's format, and closed when the engine stops, the route goes or the format changes.
/// A stream that cannot open (no sound server, no output) is not tried again until the engine starts again: the player
/// renders to its tap only.
private final class PlayerOutput: Sendable {
    private struct Slot {
        var isWanted = false
        var playback: PulsePlayback?
        /// Set when opening failed; cleared by `close()`.
        var gaveUp = false
        /// Counts closes, so that a stream opened while one happened is closed at once.
        var generation = 0
    }

    private let slot = Mutex(Slot())

    func setWanted(_ wanted: Bool) {
        let closing = slot.withLock { slot -> PulsePlayback? in
            slot.isWanted = wanted
            guard !wanted else { return nil }
            defer { slot.playback = nil }
            return slot.playback
        }
        closing?.close()
    }

    /// Plays `samples` (interleaved frames in `format`), opening the stream first if needed (blocking: milliseconds).
    func play(_ samples: [Float], format: AVAudioFormat) {
        let rate = Int(format.sampleRate.rounded()), channels = Int(format.channelCount)
        let (current, generation) = slot.withLock { slot -> (PulsePlayback?, Int?) in
            guard slot.isWanted, !slot.gaveUp else { return (nil, nil) }
            return (slot.playback, slot.generation)
        }
        guard let generation else { return }
        var playback = current
        if let open = playback, open.sampleRate != rate || open.channelCount != channels {
            slot.withLock { $0.playback = nil }
            open.close()
            playback = nil
        }
        if playback == nil { playback = open(rate: rate, channels: channels, generation: generation) }
        samples.withUnsafeBufferPointer { playback?.write($0) }
    }

    /// Closes the stream; the next render that wants one opens a new one.
    func close() {
        let closing = slot.withLock { slot -> PulsePlayback? in
            defer { (slot.playback, slot.gaveUp, slot.generation) = (nil, false, slot.generation + 1) }
            return slot.playback
        }
        closing?.close()
    }

    private func open(rate: Int, channels: Int, generation: Int) -> PulsePlayback? {
        let opened = try? PulsePlayback(name: "AVAudioPlayerNode", sampleRate: rate, channelCount: channels)
        let kept = slot.withLock { slot -> Bool in
            guard slot.generation == generation, slot.isWanted else { return false }
            if let opened { slot.playback = opened } else { slot.gaveUp = true }
            return true
        }
        if !kept { opened?.close() }
        return kept ? opened : nil
    }
}
