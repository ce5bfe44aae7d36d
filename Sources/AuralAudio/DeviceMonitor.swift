import CPulse
import Foundation
import Synchronization

/// The input that feeds a capture on the default input: the Linux counterpart of AuralKit's audio route.
public struct AudioInputInfo: Sendable, Hashable, CustomStringConvertible {
    /// The human-readable name, such as "Built-in Audio Analog Stereo".
    public let portName: String
    /// The server's stable name for the input (a PulseAudio source name), as `AudioDevice.name`.
    public let uid: String
    /// Channels of the input's native format.
    public let channelCount: Int
    /// The input's native sample rate, in hertz.
    public let nominalSampleRate: Double

    /// An input description; normally published by `DeviceMonitor`.
    public init(portName: String, uid: String, channelCount: Int, nominalSampleRate: Double) {
        self.portName = portName
        self.uid = uid
        self.channelCount = channelCount
        self.nominalSampleRate = nominalSampleRate
    }

    /// For example "Built-in Audio (alsa_input.pci-0000_00_1f.3.analog-stereo), 2 ch, 48000 Hz".
    public var description: String { "\(portName) (\(uid)), \(channelCount) ch, \(Int(nominalSampleRate)) Hz" }
}

/// Watches the sound server and publishes the default input whenever it changes or a device comes or goes.
///
/// ```swift
/// let monitor = DeviceMonitor()
/// for try await input in try monitor.start() {   // the current default input first
///     print("now listening through \(input.portName)")
/// }
/// ```
///
/// Events come from libpulse subscriptions (server, sources and sinks) and arrive within milliseconds of the
/// change. An input added or removed publishes the (possibly unchanged) default input again, so a consumer can
/// refresh a device list; when no default input exists (every input removed) nothing is published until one does.
/// The stream throws `AudioDeviceError.connectionLost` when the server goes away.
public final class DeviceMonitor: Sendable {
    private let watcher = Mutex<DeviceWatcher?>(nil)
    /// The server to use instead of the one libpulse finds (tests point this at a server they stop).
    let server: String?

    /// A monitor; nothing happens until `start()`.
    public convenience init() {
        self.init(server: nil)
    }

    init(server: String?) {
        self.server = server
    }

    deinit {
        stop()
    }

    /// Connects and starts publishing, first the current default input.
    ///
    /// Blocks for the connection (milliseconds; at most 5 s when the server does not answer; `startMonitoring()`
    /// waits without blocking). Starting again stops the previous stream.
    /// - Throws: `AudioDeviceError.noSoundServer` when no server runs.
    public func start() throws -> AsyncThrowingStream<AudioInputInfo, Error> {
        stop()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: AudioInputInfo.self, throwing: Error.self)
        let newWatcher = try DeviceWatcher(continuation: continuation, server: server)
        // Termination can be reported on the mainloop thread, which must not tear its own loop down.
        continuation.onTermination = { _ in DispatchQueue.global().async { newWatcher.close() } }
        watcher.withLock { $0 = newWatcher }
        return stream
    }

    /// What `start()` does, on a thread of its own: awaiting it never blocks a cooperative thread while the
    /// server connects (at most 5 s when it does not answer).
    /// - Throws: as `start()`.
    public func startMonitoring() async throws -> AsyncThrowingStream<AudioInputInfo, Error> {
        try await onOwnThread("AuralAudio device monitor") { [self] in try start() }
    }

    /// Stops publishing and finishes the stream. Safe to call more than once, or before `start()`.
    public func stop() {
        watcher.withLock { current in
            defer { current = nil }
            return current
        }?.close()
    }
}

/// The libpulse side of `DeviceMonitor`: a context subscribed to server, source and sink events. Its state is
/// touched only on the mainloop thread (or with the lock held).
private final class DeviceWatcher: @unchecked Sendable {
    private let context: PulseContext
    private let continuation: AsyncThrowingStream<AudioInputInfo, Error>.Continuation
    private var lastPublished: AudioInputInfo?

    init(continuation: AsyncThrowingStream<AudioInputInfo, Error>.Continuation, server: String?) throws(AudioDeviceError) {
        self.continuation = continuation
        context = try PulseContext(applicationName: "AuralKit device monitor", server: server)
        do throws(AudioDeviceError) {
            try context.withLock { () throws(AudioDeviceError) in
                context.onConnectionLost = { [continuation] error in continuation.finish(throwing: error) }
                context.onEvent = { [unowned self] facility, kind, _ in self.handle(facility: facility, kind: kind) }
                try context.subscribe(
                    PA_SUBSCRIPTION_MASK_SERVER.rawValue | PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SINK.rawValue)
                publishDefaultInput(always: true)
            }
        } catch {
            context.close()
            throw error
        }
    }

    func close() {
        context.close()
        continuation.finish()
    }

    // MARK: - Mainloop thread (or lock held)

    private func handle(facility: UInt32, kind: UInt32) {
        switch facility {
        case PA_SUBSCRIPTION_EVENT_SERVER.rawValue:
            // The default input may have changed; publish only if it did. PipeWire's pulse layer changes a default
            // in two steps (the one asked for, then its session manager's choice) and may send this event for the
            // first with the second not yet answered to queries, and none for the second: look again shortly.
            publishDefaultInput(always: false)
            for delay in Self.settleRechecks { recheck(after: delay) }
        case PA_SUBSCRIPTION_EVENT_SOURCE.rawValue:
            // An input came or went: publish (the default may be unchanged); a mere change only if it shows.
            publishDefaultInput(always: kind != PA_SUBSCRIPTION_EVENT_CHANGE.rawValue)
        case PA_SUBSCRIPTION_EVENT_SINK.rawValue where kind != PA_SUBSCRIPTION_EVENT_CHANGE.rawValue:
            // An output came or went, and its monitor with it.
            publishDefaultInput(always: false)
        default:
            break
        }
    }

    /// Seconds after a server event at which the default input is looked at again.
    private static let settleRechecks: [Double] = [0.05, 0.25, 1]

    /// Looks at the default input again `delay` seconds from now, from another thread, unless the watcher
    /// has closed by then.
    private func recheck(after delay: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            context.withLock {
                if context.isConnected { publishDefaultInput(always: false) }
            }
        }
    }

    /// Asks for the default source's name, then its details, then publishes; never waits (runs in callbacks).
    private func publishDefaultInput(always: Bool) {
        let request = Request(watcher: self, always: always)
        let userdata = Unmanaged.passRetained(request).toOpaque()
        let operation = pa_context_get_server_info(context.context, { pulseContext, info, userdata in
            let request = Unmanaged<Request>.fromOpaque(userdata!).takeRetainedValue()
            guard let info, let name = PulseServerRecord(info.pointee).defaultSourceName else { return }
            let next = Unmanaged.passRetained(request).toOpaque()
            let lookup = pa_context_get_source_info_by_name(pulseContext, name, { _, info, eol, userdata in
                guard eol == 0 else {
                    Unmanaged<Request>.fromOpaque(userdata!).release()
                    return
                }
                let request = Unmanaged<Request>.fromOpaque(userdata!).takeUnretainedValue()
                if let info { request.watcher.publish(PulseSourceRecord(info.pointee), always: request.always) }
            }, next)
            if let lookup { pa_operation_unref(lookup) } else { Unmanaged<Request>.fromOpaque(next).release() }
        }, userdata)
        if let operation { pa_operation_unref(operation) } else { Unmanaged<Request>.fromOpaque(userdata).release() }
    }

    private func publish(_ source: PulseSourceRecord, always: Bool) {
        let info = AudioInputInfo(
            portName: source.description, uid: source.name, channelCount: source.channelCount,
            nominalSampleRate: Double(source.sampleRate))
        guard always || info != lastPublished else { return }
        lastPublished = info
        continuation.yield(info)
    }

    /// One chain of queries in flight, kept alive by an unbalanced retain until its last callback. The watcher
    /// outlives every callback: closing its context (before it is freed) cancels them.
    private final class Request {
        unowned(unsafe) let watcher: DeviceWatcher
        let always: Bool
        init(watcher: DeviceWatcher, always: Bool) {
            self.watcher = watcher
            self.always = always
        }
    }
}
