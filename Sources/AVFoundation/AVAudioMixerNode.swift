/// A node that mixes its inputs; the engine's `mainMixerNode` feeds the output.
///
/// Its format is the output's, until a connection sets another. On Linux the sound server mixes the players connected
/// through it, each on a stream of its own (see `AVAudioEngine`): its tap gets no buffers, and `outputVolume` is kept
/// but changes nothing.
public class AVAudioMixerNode: AVAudioNode {
    /// The mixer's output volume, 0...1 (kept, not applied; see the type's note).
    public var outputVolume: Float = 1

    /// A mixer; attach it to an engine and connect it.
    public override init() {
        super.init()
    }

    override var defaultFormat: AVAudioFormat {
        engine?.outputNode.outputFormat(forBus: 0) ?? AVAudioNode.standardFormat
    }
}
