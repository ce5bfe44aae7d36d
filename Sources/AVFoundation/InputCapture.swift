import AuralAudio

/// The input node's recording while the engine runs with a tap on it: the default input through AuralAudio's
/// `PulseMicrophoneSource`, in the tap's rate and channel count (the sound server converts), cut into the tap's
/// buffers on a serial queue of the capture's own, never on Swift's cooperative pool.
final class InputCapture: Sendable {
    private let source: PulseMicrophoneSource
    private let queue = DispatchQueue(label: "AVFoundation.AVAudioInputNode.tap", qos: .userInteractive)
    private let active = ActiveFlag()
    private let feeder: FeederBox

    /// Connects to the sound server and starts recording for `tap`; `onFailure` is called (on the capture's queue) if
    /// the recording later ends with an error (the input or the server went away).
    ///
    /// Blocks for the round trips to the server: milliseconds, at most 5 s when it does not answer.
    /// - Throws: `AudioDeviceError` when there is no server or no input.
    init(tap: Tap, onFailure: @escaping @Sendable (AudioDeviceError) -> Void) throws {
        let format = AudioFormat(sampleRate: Int(tap.format.sampleRate), channelCount: Int(tap.format.channelCount))
        source = PulseMicrophoneSource(format: format)
        feeder = FeederBox(TapFeeder(tap: tap, generation: 0))
        let stream = try source.start()
        let (queue, feeder, active) = (queue, feeder, active)
        Task.detached(priority: .high) {
            do {
                for try await buffer in stream {
                    let now = AVAudioTime.now
                    let host = now - min(now, UInt64(buffer.duration * 1e9))  // when its first frame was heard
                    let start = AVAudioFramePosition((buffer.startTime * Double(buffer.format.sampleRate)).rounded())
                    queue.async {
                        guard active.isActive else { return }
                        feeder.feeder.feed(buffer.samples, sampleTime: start, hostTime: host)
                    }
                }
            } catch {
                queue.async {
                    guard active.isActive else { return }
                    onFailure(error as? AudioDeviceError ?? .connectionLost(reason: "\(error)"))
                }
            }
        }
    }

    deinit {
        stop()
    }

    /// Stops recording; no tap buffer is delivered after this returns, but for one already being delivered.
    func stop() {
        active.clear()
        source.stop()
    }
}

/// The feeder, touched only on the capture's serial queue.
private final class FeederBox: @unchecked Sendable {
    let feeder: TapFeeder
    init(_ feeder: TapFeeder) { self.feeder = feeder }
}
