extension Notification.Name {
    /// Posted, with the engine as the object, when the sound server's default input changes (another device, rate or
    /// channel count), or when the engine stopped because its input or the server went away. Posted on a background
    /// queue.
    public static let AVAudioEngineConfigurationChange = Notification.Name("AVAudioEngineConfigurationChangeNotification")
}

/// A graph of audio nodes: the microphone (`inputNode`), player nodes, the main mixer and the output.
///
/// ```swift
/// let engine = AVAudioEngine()
/// let input = engine.inputNode
/// input.installTap(onBus: 0, bufferSize: 4_096, format: input.outputFormat(forBus: 0)) { buffer, time in
///     // buffer.floatChannelData![0][0..<Int(buffer.frameLength)]
/// }
/// engine.prepare()
/// try engine.start()
/// ```
///
/// Live audio goes through AuralAudio and the sound server (PulseAudio, or PipeWire through pipewire-pulse). With a tap
/// on the input node, `start()` records the default input; the tap block runs on a queue of the engine's own, never on
/// the main thread or Swift's cooperative pool. Player nodes render in real time on a thread of the engine's own.
///
/// `start()` and the first look at a device format block for round trips to the sound server (milliseconds; at most 5 s
/// when it does not answer), as Apple's do for the audio hardware: call them off the main actor if that matters. With a
/// tap on the input node and no sound server or no input, `start()` throws an `NSError` (code 'stop' or '!dev' in
/// Apple's "com.apple.coreaudio.avfaudio" domain) that says so and how to fix it; it never hangs or crashes. Without an
/// input tap the engine needs no sound server (players render on its own clock).
///
/// Differences from Apple's, from AuralAudio:
/// - Player nodes render on the engine's clock (the host clock, every 10 ms), not the output device's. Each player whose
///   connections lead to the output node plays through a playback stream of its own to the sound server's default
///   output, in the player's format; the server mixes and resamples them, so the main mixer mixes nothing here (its
///   tap gets no buffers) and its volume and pan are not applied. What reaches the loudspeaker is about 0.5 s behind
///   the render time (the stream's buffer, which absorbs stalls of this process). With no sound server or no output,
///   players still render to their taps, silently.
/// - A change of the default input does not stop the engine: recording follows the new input by itself. The
///   notification is posted all the same, and an app that restarts the engine in its handler keeps working. A failure
///   of the input or the server stops the engine and posts it, as on Apple.
/// - A tap installed on the input node while the engine runs starts recording at once; if that fails, the engine stops
///   and posts `AVAudioEngineConfigurationChange` (Apple's `installTap` cannot report errors either).
public class AVAudioEngine: NSObject {
    let core = EngineCore()
    private var nodes: [ObjectIdentifier: AVAudioNode] = [:]
    private var madeInputNode: AVAudioInputNode?
    private var madeOutputNode: AVAudioOutputNode?
    private var madeMainMixer: AVAudioMixerNode?
    private var connections: [Connection] = []

    private struct Connection {
        let source: AVAudioNode
        let sourceBus: AVAudioNodeBus
        let destination: AVAudioNode
        let destinationBus: AVAudioNodeBus
    }

    /// An engine with no nodes but its input and output, made when first asked for.
    public override init() {
        super.init()
        core.owner = self
    }

    deinit {
        core.stop()
    }

    /// The microphone: the sound server's default input (see `AVAudioInputNode`). Made and attached when first asked for.
    public var inputNode: AVAudioInputNode {
        if let madeInputNode { return madeInputNode }
        let node = AVAudioInputNode(core: core)
        madeInputNode = node
        attach(node)
        return node
    }

    /// The sound server's default output (see `AVAudioOutputNode`). Made and attached when first asked for.
    public var outputNode: AVAudioOutputNode {
        if let madeOutputNode { return madeOutputNode }
        let node = AVAudioOutputNode(core: core)
        madeOutputNode = node
        attach(node)
        return node
    }

    /// The main mixer, connected to the output node. Made, attached and connected when first asked for.
    public var mainMixerNode: AVAudioMixerNode {
        if let madeMainMixer { return madeMainMixer }
        let mixer = AVAudioMixerNode()
        madeMainMixer = mixer
        attach(mixer)
        connect(mixer, to: outputNode, format: nil)
        return mixer
    }

    /// The nodes attached to the engine.
    public var attachedNodes: Set<AVAudioNode> {
        Set(nodes.values)
    }

    /// Whether the engine runs (from `start()` until `pause()`, `stop()`, or a failure of its input).
    public var isRunning: Bool { core.isRunning }

    /// Attaches a node; attaching it again changes nothing.
    public func attach(_ node: AVAudioNode) {
        guard nodes[ObjectIdentifier(node)] == nil else { return }
        nodes[ObjectIdentifier(node)] = node
        node.engine = self
        if let player = node as? AVAudioPlayerNode { core.attach(player.core) }
        updateRoutes()
    }

    /// Detaches a node and its connections; a player stops.
    public func detach(_ node: AVAudioNode) {
        guard nodes.removeValue(forKey: ObjectIdentifier(node)) != nil else { return }
        disconnectNodeInput(node)
        disconnectNodeOutput(node)
        node.engine = nil
        if let player = node as? AVAudioPlayerNode {
            player.stop()
            player.core.setRoutedToOutput(false)
            core.detach(player.core)
        }
    }

    /// Connects output bus 0 of `node1` to input bus 0 of `node2` in `format` (nil: `node1`'s output format).
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        connect(node1, to: node2, fromBus: 0, toBus: 0, format: format)
    }

    /// Connects output bus `bus1` of `node1` to input bus `bus2` of `node2` in `format` (nil: `node1`'s output
    /// format), replacing what was connected to either bus. Nodes not yet attached are attached.
    public func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus,
                        format: AVAudioFormat?) {
        attach(node1)
        attach(node2)
        connections.removeAll {
            ($0.source === node1 && $0.sourceBus == bus1) || ($0.destination === node2 && $0.destinationBus == bus2)
        }
        connections.append(Connection(source: node1, sourceBus: bus1, destination: node2, destinationBus: bus2))
        if let format {
            node1.connectedOutputFormats[bus1] = format
            node1.outputFormatChanged()
        }
        node2.connectedInputFormats[bus2] = format ?? node1.outputFormat(forBus: bus1)
        updateRoutes()
    }

    /// Removes the connections into `node`.
    public func disconnectNodeInput(_ node: AVAudioNode) {
        connections.removeAll { $0.destination === node }
        node.connectedInputFormats = [:]
        updateRoutes()
    }

    /// Removes the connections out of `node`.
    public func disconnectNodeOutput(_ node: AVAudioNode) {
        connections.removeAll { $0.source === node }
        updateRoutes()
    }

    /// Asks the sound server for the device formats now, so that `start()` does less.
    public func prepare() {
        _ = core.devices
    }

    /// Starts the engine: records the default input if the input node has a tap, and renders the player nodes.
    /// Starting a running engine changes nothing.
    /// - Throws: an `NSError` when the input node has a tap and there is no sound server ('stop') or no input ('!dev');
    ///   its `localizedRecoverySuggestion` says what to do.
    public func start() throws {
        try core.start(inputTap: madeInputNode?.tapSlot.current.tap)
    }

    /// Stops recording and rendering; players keep what is scheduled and their place, and go on at the next `start()`.
    public func pause() {
        core.stop()
    }

    /// Stops recording and rendering, as `pause()`.
    public func stop() {
        core.stop()
    }

    /// Resets every attached node (players drop what is scheduled).
    public func reset() {
        nodes.values.forEach { $0.reset() }
    }

    /// Tells each player whether its connections lead to the output node, so that it plays to the loudspeaker.
    private func updateRoutes() {
        for case let player as AVAudioPlayerNode in nodes.values {
            player.core.setRoutedToOutput(reachesOutput(from: player))
        }
    }

    /// Whether a chain of connections leads from `node` to the output node.
    private func reachesOutput(from node: AVAudioNode) -> Bool {
        guard let output = madeOutputNode else { return false }
        var seen: Set<ObjectIdentifier> = []
        var next = [node]
        while let current = next.popLast() {
            if current === output { return true }
            guard seen.insert(ObjectIdentifier(current)).inserted else { continue }
            next += connections.filter { $0.source === current }.map(\.destination)
        }
        return false
    }
}
