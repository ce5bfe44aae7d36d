/// The engine's output: the sound server's default output.
///
/// Its output format is the default output's native rate and channel count in the standard format; 0 Hz and 0
/// channels when there is none. Each player node whose connections lead here plays to the default output through a
/// playback stream of its own (see `AVAudioEngine`).
public class AVAudioOutputNode: AVAudioNode {
    private let core: EngineCore

    init(core: EngineCore) {
        self.core = core
        super.init()
    }

    /// The output node has no output bus.
    public override var numberOfOutputs: Int { 0 }

    override var defaultFormat: AVAudioFormat {
        core.devices.output ?? DeviceFormats.none
    }
}
