import Foundation

/// What the machine plays: everything an output plays (its monitor), or one application's playback alone.
/// The Linux counterpart of capturing a screen's audio with ScreenCaptureKit.
///
/// ```swift
/// let speaker = PulseSystemAudioSource()                              // everything the default output plays
/// let browser = PulseSystemAudioSource(target: .application(id: app.id)) // one application (see `AudioDevices`)
/// for try await buffer in try speaker.start() { … }
/// ```
///
/// Capture goes through libpulse record streams on the output's monitor source; for one application the stream
/// is tied to that application's playback stream (its sink input), so other applications are not heard.
/// Delivery, format conversion, overrun counting and server faults (`LiveCaptureOptions`) work as in
/// `PulseMicrophoneSource`.
///
/// - Note: PulseAudio's null and idle outputs render in large blocks, so the first buffer may take up to 2 s to
///   arrive; audio played before it is not captured. Real outputs and PipeWire start within tens of milliseconds.
public final class PulseSystemAudioSource: AudioSource {
    /// Which playback to capture.
    public enum Target: Sendable, Hashable {
        /// Everything the default output plays. When the user picks another default output (or the default one
        /// goes away), the capture moves to the new default within about 0.1 s and buffers keep coming; audio
        /// the new output plays before the move is not captured.
        case defaultOutput
        /// Everything the output with this name plays (`AudioDevice.name` of an output, or of its monitor).
        case output(name: String)
        /// Only what one application plays: `AudioApplication.id` from `AudioDevices.list()`. The stream
        /// finishes normally when the application stops playing.
        case application(id: Int)
    }

    /// The playback captured.
    public let target: Target
    /// The format buffers are delivered in.
    public let format: AudioFormat
    /// Whether this process's own playback is left out of an output's capture (as ScreenCaptureKit's
    /// `excludesCurrentProcessAudio`); see `init(target:format:excludesCurrentProcessAudio:)`.
    public let excludesCurrentProcessAudio: Bool
    /// How the capture copes with a server that freezes or restarts.
    public let options: LiveCaptureOptions
    private let capture = PulseCaptureSlot()
    /// The server to use instead of the one libpulse finds (tests point this at a server they stop).
    let server: String?
    /// Processes left out besides this one (tests exclude a player they start).
    let additionalExcludedProcessIDs: Set<Int32>

    /// A source capturing `target` (default: everything the default output plays) in `format` (default 16 kHz mono).
    ///
    /// With `excludesCurrentProcessAudio`, this process's playback streams (found by `application.process.id`,
    /// including ones it opens during the capture) are left out: while one of them plays, the capture is made of
    /// each other application's playback, captured separately and mixed, instead of the output's monitor (an
    /// application that starts playing meanwhile is mixed in from when its stream is picked up, a few milliseconds
    /// after it starts); while none plays, it is the monitor. It has no effect with `.application`. `options` says how the
    /// capture copes with server faults (default: a frozen server ends the stream after 2 s; no reconnecting).
    public convenience init(
        target: Target = .defaultOutput, format: AudioFormat = .whisper, excludesCurrentProcessAudio: Bool = false,
        options: LiveCaptureOptions = .init()
    ) {
        self.init(target: target, format: format, excludesCurrentProcessAudio: excludesCurrentProcessAudio, options: options, server: nil)
    }

    init(
        target: Target, format: AudioFormat, excludesCurrentProcessAudio: Bool, options: LiveCaptureOptions = .init(),
        server: String?, additionalExcludedProcessIDs: Set<Int32> = []
    ) {
        self.options = options
        self.additionalExcludedProcessIDs = additionalExcludedProcessIDs
        self.target = target
        self.format = format
        self.excludesCurrentProcessAudio = excludesCurrentProcessAudio
        self.server = server
    }

    /// Connects to the sound server, finds the output (or application) and starts capturing.
    ///
    /// Blocks for the round trips to the server (a few milliseconds; at most 5 s when the server does not answer);
    /// from async code, `startCapture()` waits for them on a thread of its own instead.
    /// Starting again stops the previous capture first.
    /// - Throws: `AudioDeviceError.noSoundServer`, `.deviceNotFound`, `.streamFailed`.
    public func start() throws -> AsyncThrowingStream<AudioBuffer, Error> {
        stop()
        let target = self.target
        let format = self.format
        let excluded = excludedProcessIDs
        // Run again after a reconnect: the output (or application) is looked up anew on the new connection.
        let newCapture = try PulseCapture(format: format, server: server, options: options) { context, ring, signal throws(AudioDeviceError) in
            let plan = try context.withLock { () throws(AudioDeviceError) -> Plan in try Self.resolve(target, in: context) }
            let follows = target == .defaultOutput
            let stream = try PulseRecordStream(
                context: context, name: "AuralKit system audio", format: format, device: plan.monitor, label: plan.label,
                sinkInput: plan.sinkInput,
                killMeaning: follows ? .followsDefault : plan.sinkInput == nil ? .deviceDisappeared : .finished,
                ring: ring, signal: signal)
            let followedOutput = follows ? plan.label : nil
            guard plan.sinkInput == nil, !excluded.isEmpty else {
                return PulseCapture.Streams(records: [stream], mixer: nil, followedOutput: followedOutput)
            }
            do throws(AudioDeviceError) {
                let mixer = try PlaybackMixer(
                    context: context, format: format, sinkIndex: plan.sinkIndex, monitorName: plan.monitor, excluding: excluded,
                    wake: signal)
                return PulseCapture.Streams(records: [stream], mixer: mixer, followedOutput: followedOutput)
            } catch {
                stream.close()
                throw error
            }
        }
        return capture.start(newCapture)
    }

    /// Stops capturing; buffers already captured are still delivered, then the stream finishes.
    /// Safe to call more than once, or before `start()`.
    public func stop() {
        capture.stop()
    }

    /// Frames lost since `start()` because the consumer did not keep up (0 when it did).
    public var overrunFrameCount: Int {
        capture.overrunFrameCount
    }

    /// The monitor being recorded now (with `.defaultOutput` it changes when the default output does), or nil
    /// when not capturing.
    public var currentDeviceName: String? {
        capture.current?.deviceName
    }

    /// What `start()` records: a monitor source, for errors a label, and the sink input for one application.
    private struct Plan {
        var monitor: String
        var label: String
        var sinkIndex: UInt32
        var sinkInput: UInt32?
    }

    /// The processes left out: this one with `excludesCurrentProcessAudio` (tests name others).
    var excludedProcessIDs: Set<Int32> {
        var excluded = additionalExcludedProcessIDs
        if excludesCurrentProcessAudio { excluded.insert(getpid()) }
        return excluded
    }

    /// Finds what `target` means now, with the lock held.
    private static func resolve(_ target: Target, in context: PulseContext) throws(AudioDeviceError) -> Plan {
        let sinks = try context.sinks()
        switch target {
        case .defaultOutput:
            guard let name = try context.serverInfo().defaultSinkName, let sink = sinks.first(where: { $0.name == name }) else {
                throw .deviceNotFound(name: "default output")
            }
            return Plan(monitor: sink.monitorSourceName, label: sink.name, sinkIndex: sink.index)
        case .output(let name):
            guard let sink = sinks.first(where: { $0.name == name || $0.monitorSourceName == name }) else {
                throw .deviceNotFound(name: name)
            }
            return Plan(monitor: sink.monitorSourceName, label: sink.name, sinkIndex: sink.index)
        case .application(let id):
            guard let input = try context.sinkInputs().first(where: { Int($0.index) == id }),
                let sink = sinks.first(where: { $0.index == input.sink })
            else { throw .deviceNotFound(name: "application #\(id)") }
            return Plan(
                monitor: sink.monitorSourceName, label: "\(input.applicationName) (application #\(id))", sinkIndex: sink.index,
                sinkInput: input.index)
        }
    }
}
