import AuralAudio
import Synchronization

/// The native formats of the sound server's default input and output, as `AudioDevices.list()` reports them.
struct DeviceFormats: Sendable {
    /// The default input's format; nil when there is no input or no server.
    var input: AVAudioFormat?
    /// The default output's format; nil when there is no output or no server.
    var output: AVAudioFormat?
    /// Why the server could not be asked, if it could not.
    var failure: AudioDeviceError?

    /// Asks the server (blocking: milliseconds, at most 5 s when it does not answer).
    static func query() -> DeviceFormats {
        do {
            let list = try AudioDevices.list()
            return DeviceFormats(input: list.defaultInput.map(standard), output: list.defaultOutput.map(standard))
        } catch {
            return DeviceFormats(failure: error)
        }
    }

    /// The standard format at the device's rate and channel count.
    static func standard(_ device: AudioDevice) -> AVAudioFormat {
        AVAudioFormat(sampleRate: Double(device.sampleRate), channelCount: AVAudioChannelCount(device.channelCount),
                      commonFormat: .pcmFormatFloat32, isInterleaved: false)
    }

    /// What Apple's engine reports for a device that does not exist: 0 Hz, 0 channels.
    static let none = AVAudioFormat(sampleRate: 0, channelCount: 0, commonFormat: .pcmFormatFloat32, isInterleaved: false)
}

/// The running part of an `AVAudioEngine`, shared with the threads that deliver audio: whether it runs, the input
/// capture, the device monitor, the players' render clock, and the device formats last seen.
final class EngineCore: Sendable {
    private struct State {
        var isRunning = false
        var capture: InputCapture?
        var monitor: DeviceMonitor?
        var clock: RenderClock?
        var devices: DeviceFormats?
        var players: [PlayerCore] = []
    }

    private let state = Mutex(State())
    private let ownerReference = WeakReference()

    /// The engine, the object of the notifications; set once, by the engine's initializer.
    var owner: AnyObject? {
        get { ownerReference.object }
        set { ownerReference.object = newValue }
    }

    deinit {
        stop()
    }

    var isRunning: Bool { state.withLock { $0.isRunning } }

    /// The device formats, asked of the server the first time (blocking) and after each change of default input.
    var devices: DeviceFormats {
        if let known = state.withLock({ $0.devices }) { return known }
        let fresh = DeviceFormats.query()
        state.withLock { $0.devices = fresh }
        return fresh
    }

    /// Starts the input capture for `inputTap` (if any), the device monitor and the players' clock.
    /// - Throws: an `NSError` when the input tap cannot record (no server, no input).
    func start(inputTap: Tap?) throws {
        guard !isRunning else { return }
        let capture = try inputTap.map(makeCapture)
        let monitor = startMonitor()
        state.withLock {
            $0.isRunning = true
            $0.capture = capture
            $0.monitor = monitor
        }
        updateClock()
    }

    /// Stops everything started by `start`. Safe to call more than once.
    func stop() {
        let (capture, monitor, clock, players) = state.withLock { state in
            defer { (state.isRunning, state.capture, state.monitor, state.clock) = (false, nil, nil, nil) }
            return (state.capture, state.monitor, state.clock, state.players)
        }
        capture?.stop()
        monitor?.stop()
        clock?.stop()
        players.forEach { $0.halt() }
    }

    /// Follows a new or removed input tap while running: stops the old capture and starts one for the new tap. A
    /// capture that cannot start stops the engine and posts a configuration change, as a failed device does on Apple.
    func inputTapChanged(_ inputTap: Tap?) {
        let old = state.withLock { state -> InputCapture? in
            defer { state.capture = nil }
            return state.isRunning ? state.capture : nil
        }
        old?.stop()
        guard isRunning, let tap = inputTap else { return }
        do {
            let capture = try makeCapture(tap)
            state.withLock { $0.capture = capture }
        } catch {
            failed()
        }
    }

    /// Adds a player for the clock to render (`detach` removes it).
    func attach(_ player: PlayerCore) {
        state.withLock { $0.players.append(player) }
        updateClock()
    }

    func detach(_ player: PlayerCore) {
        state.withLock { $0.players.removeAll { $0 === player } }
        player.halt()
        updateClock()
    }

    /// Starts the render clock when the engine runs with players, and stops it otherwise.
    private func updateClock() {
        let (start, stop) = state.withLock { state -> (Bool, RenderClock?) in
            let wanted = state.isRunning && !state.players.isEmpty
            if wanted, state.clock == nil { return (true, nil) }
            if !wanted, let clock = state.clock {
                state.clock = nil
                return (false, clock)
            }
            return (false, nil)
        }
        stop?.stop()
        guard start else { return }
        let clock = RenderClock { [weak self] in self?.state.withLock { $0.players } ?? [] }
        state.withLock { $0.clock = clock }
    }

    private func makeCapture(_ tap: Tap) throws -> InputCapture {
        guard tap.format.channelCount > 0, tap.format.sampleRate > 0 else { throw noInputError() }
        do {
            return try InputCapture(tap: tap) { [weak self] _ in self?.failed() }
        } catch let error as AudioDeviceError {
            throw AVAudioError.device(error)
        }
    }

    /// Why there is no input to record: no server, or a server without inputs.
    private func noInputError() -> NSError {
        let devices = DeviceFormats.query()
        state.withLock { $0.devices = devices }
        if let failure = devices.failure { return AVAudioError.device(failure) }
        return AVAudioError.make(
            AVAudioError.Code.badDevice, "There is no audio input.",
            reason: "The sound server lists no default input (no microphone or line in).",
            suggestion: "Connect a microphone, or choose an input in the desktop's sound settings (or with pactl set-default-source).")
    }

    /// Watches the default input (blocking while it connects); nil when there is no server.
    private func startMonitor() -> DeviceMonitor? {
        let monitor = DeviceMonitor()
        guard let stream = try? monitor.start() else { return nil }
        Task.detached { [weak self] in
            var last: AudioInputInfo?
            do {
                for try await input in stream {
                    defer { last = input }
                    guard let previous = last, previous.uid != input.uid || previous.channelCount != input.channelCount
                        || previous.nominalSampleRate != input.nominalSampleRate else { continue }
                    self?.inputDeviceChanged()
                }
            } catch {
                // Stopping closes connections, which blocks briefly: not on the cooperative pool.
                let core = self
                DispatchQueue.global().async { core?.failed() }
            }
        }
        return monitor
    }

    /// The default input changed: forget the formats and tell the app. The capture follows the new input by itself.
    private func inputDeviceChanged() {
        state.withLock { $0.devices = nil }
        postConfigurationChange()
    }

    /// The capture or the server failed: stop, and tell the app (which may start again).
    private func failed() {
        guard isRunning else { return }
        stop()
        state.withLock { $0.devices = nil }
        postConfigurationChange()
    }

    private func postConfigurationChange() {
        DispatchQueue.global().async { [self] in
            NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: owner)
        }
    }
}

/// A weak reference to the engine, which owns the core: set in the engine's initializer, before any thread of the core
/// reads it, and only read afterwards.
private final class WeakReference: @unchecked Sendable {
    weak var object: AnyObject?
}
