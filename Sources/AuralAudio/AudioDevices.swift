import Foundation

/// An input, an output, or the monitor of an output, as the sound server lists it.
public struct AudioDevice: Sendable, Hashable, Codable {
    /// What a device does.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A microphone or line in (a PulseAudio source).
        case input
        /// A speaker or headphones (a PulseAudio sink).
        case output
        /// What an output plays, as an input (the sink's monitor source): the "system audio" of that output.
        case monitor
    }

    /// The server's name for the device, which `PulseMicrophoneSource(deviceName:)` and
    /// `PulseSystemAudioSource(target: .output(name:))` take.
    public var name: String
    /// The human-readable name, such as "Built-in Audio Analog Stereo".
    public var description: String
    /// Input, output or monitor.
    public var kind: Kind
    /// Channels of the device's native format.
    public var channelCount: Int
    /// Sample rate of the device's native format, in hertz.
    public var sampleRate: Int
    /// Whether it is the server's default input (for inputs and monitors) or default output (for outputs).
    public var isDefault: Bool
    /// For a monitor, the name of the output it monitors; nil otherwise.
    public var monitoredOutput: String?

    /// A device record; normally read from `AudioDevices.list()`.
    public init(
        name: String, description: String, kind: Kind, channelCount: Int, sampleRate: Int, isDefault: Bool,
        monitoredOutput: String? = nil
    ) {
        self.name = name
        self.description = description
        self.kind = kind
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.isDefault = isDefault
        self.monitoredOutput = monitoredOutput
    }
}

/// An application playing audio now (a PulseAudio sink input), for capturing its output alone with
/// `PulseSystemAudioSource(target: .application(id:))`.
public struct AudioApplication: Sendable, Hashable, Codable {
    /// The server's index for this playback stream; valid while the application plays.
    public var id: Int
    /// The application's name, such as "Firefox" or "paplay".
    public var name: String
    /// What it plays, when the application says (a track or file name).
    public var mediaName: String?
    /// The process that plays, when the application says.
    public var processID: Int?
    /// The output it plays to (an `AudioDevice.name`).
    public var outputName: String

    /// An application record; normally read from `AudioDevices.list()`.
    public init(id: Int, name: String, mediaName: String?, processID: Int?, outputName: String) {
        self.id = id
        self.name = name
        self.mediaName = mediaName
        self.processID = processID
        self.outputName = outputName
    }
}

/// Everything the sound server offers at one moment.
public struct AudioDeviceList: Sendable, Hashable, Codable {
    /// Microphones and other real inputs (monitors are in `monitors`).
    public var inputs: [AudioDevice]
    /// Speakers, headphones and virtual outputs.
    public var outputs: [AudioDevice]
    /// The monitor of each output.
    public var monitors: [AudioDevice]
    /// Applications playing to an output now.
    public var applications: [AudioApplication]

    /// A list; normally read from `AudioDevices.list()`.
    public init(inputs: [AudioDevice], outputs: [AudioDevice], monitors: [AudioDevice], applications: [AudioApplication]) {
        self.inputs = inputs
        self.outputs = outputs
        self.monitors = monitors
        self.applications = applications
    }

    /// The default input: an input, or a monitor when the user chose one; nil when the server has none.
    public var defaultInput: AudioDevice? { (inputs + monitors).first { $0.isDefault } }
    /// The default output, or nil when the server has none.
    public var defaultOutput: AudioDevice? { outputs.first { $0.isDefault } }
}

/// The sound server's devices and playing applications.
public enum AudioDevices {
    /// Lists inputs, outputs, monitors and playing applications, with the defaults marked.
    ///
    /// Blocks for a few round trips to the server (milliseconds; at most 5 s when it does not answer). From async
    /// code use `current`, which waits without blocking.
    /// - Throws: `AudioDeviceError.noSoundServer` when no server runs, `.connectionLost` when it stops answering.
    public static func list() throws(AudioDeviceError) -> AudioDeviceList {
        try list(server: nil)
    }

    /// What `list()` returns, read on a thread of its own: awaiting it never blocks a cooperative thread, however
    /// long the server takes (at most 5 s when it does not answer).
    /// - Throws: as `list()`.
    public static var current: AudioDeviceList {
        get async throws(AudioDeviceError) { try await current(server: nil) }
    }

    static func current(server: String?) async throws(AudioDeviceError) -> AudioDeviceList {
        try await onOwnThread("AuralAudio devices") { () throws(AudioDeviceError) -> AudioDeviceList in try list(server: server) }
    }

    static func list(server: String?) throws(AudioDeviceError) -> AudioDeviceList {
        let context = try PulseContext(applicationName: "AuralKit devices", server: server)
        defer { context.close() }
        return try context.withLock { () throws(AudioDeviceError) -> AudioDeviceList in
            let server = try context.serverInfo()
            let sinks = try context.sinks()
            let sources = try context.sources()
            let inputs = try context.sinkInputs()
            let sinkNames = Dictionary(sinks.map { ($0.index, $0.name) }, uniquingKeysWith: { first, _ in first })
            func device(_ source: PulseSourceRecord) -> AudioDevice {
                AudioDevice(
                    name: source.name, description: source.description, kind: source.monitorOfSink == nil ? .input : .monitor,
                    channelCount: source.channelCount, sampleRate: source.sampleRate,
                    isDefault: source.name == server.defaultSourceName,
                    monitoredOutput: source.monitorOfSink.flatMap { sinkNames[$0] })
            }
            let sourceDevices = sources.map(device)
            return AudioDeviceList(
                inputs: sourceDevices.filter { $0.kind == .input },
                outputs: sinks.map {
                    AudioDevice(
                        name: $0.name, description: $0.description, kind: .output, channelCount: $0.channelCount,
                        sampleRate: $0.sampleRate, isDefault: $0.name == server.defaultSinkName)
                },
                monitors: sourceDevices.filter { $0.kind == .monitor },
                // PipeWire lists a new playback stream a few milliseconds before its session manager routes it to
                // an output; until then it plays nowhere and is left out (PulseAudio routes it at creation).
                applications: inputs.filter { sinkNames[$0.sink] != nil }.map {
                    AudioApplication(
                        id: Int($0.index), name: $0.applicationName, mediaName: $0.mediaName,
                        processID: $0.processID.map(Int.init), outputName: sinkNames[$0.sink] ?? "")
                })
        }
    }
}
