/// The engine's input: the sound server's default input (the microphone), recorded while the engine runs with a tap
/// on this node.
///
/// ```swift
/// let input = engine.inputNode
/// input.installTap(onBus: 0, bufferSize: 4_800, format: input.outputFormat(forBus: 0)) { buffer, time in
///     analyzerInput.yield(AnalyzerInput(buffer: buffer))
/// }
/// try engine.start()
/// ```
///
/// Its formats are the default input's native rate and channel count in the standard format (for example 48 kHz
/// stereo), asked of the sound server the first time (which blocks for milliseconds) and again after the default input
/// changes; 0 Hz and 0 channels when there is no input or no server, as Apple's engine reports a missing device. The
/// tap may ask for any rate and channel count: the sound server converts. When the user picks another default input,
/// recording moves to it and goes on, and the engine posts `AVAudioEngineConfigurationChange`.
public class AVAudioInputNode: AVAudioNode {
    private let core: EngineCore

    init(core: EngineCore) {
        self.core = core
        super.init()
    }

    /// The default input's native format (see the type's note).
    public override func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        defaultFormat
    }

    override var defaultFormat: AVAudioFormat {
        core.devices.input ?? DeviceFormats.none
    }

    override func tapChanged() {
        core.inputTapChanged(tapSlot.current.tap)
    }
}
