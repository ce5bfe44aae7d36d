import CPulse
import Foundation
import Synchronization

/// One connection to the sound server: owns a libpulse threaded mainloop and its context, and frees both.
///
/// libpulse calls back on the mainloop's own thread with the mainloop lock held. Every `pa_*` call made from
/// another thread must hold the lock (`withLock`); code running in a callback must not take it again.
/// The state below `context` is guarded by that lock, hence `@unchecked Sendable`.
final class PulseContext: @unchecked Sendable {
    /// How long connecting, opening a stream or a query may take before it counts as a failure.
    static let timeout: TimeInterval = 5

    let mainloop: OpaquePointer
    /// The `pa_context*`; nil after `close()`.
    private(set) var context: OpaquePointer?
    private var isClosed = false
    /// Called on the mainloop thread when the connection fails after it was ready.
    var onConnectionLost: ((AudioDeviceError) -> Void)?
    private var wasReady = false
    /// Called on the mainloop thread for each subscribed event: facility (`PA_SUBSCRIPTION_EVENT_SOURCE`, …),
    /// kind (`PA_SUBSCRIPTION_EVENT_NEW`, …) and the object's index.
    var onEvent: ((_ facility: UInt32, _ kind: UInt32, _ index: UInt32) -> Void)?
    /// Whether a ping is waiting for its answer (lock held).
    private var isPinging = false
    /// When the server last answered a ping (or the connection became ready), in `DispatchTime` nanoseconds.
    private let answered = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    /// The default output's name in the last answer to a ping (nil before one, or when there is none).
    private let pingedDefaultSink = Mutex<String?>(nil)
    /// Whether the last answer to a ping came from PipeWire's pulse server ("PulseAudio (on PipeWire …)").
    private let answeredByPipeWire = Atomic<Bool>(false)

    /// Connects to `server` (nil: the one libpulse finds through `PULSE_SERVER`, client.conf, or
    /// `$XDG_RUNTIME_DIR/pulse/native`). Never spawns a server. Blocks until connected, at most `timeout` seconds.
    init(applicationName: String = "AuralKit", server: String? = nil, timeout: TimeInterval = PulseContext.timeout) throws(AudioDeviceError) {
        let serverDescription = server ?? Self.serverDescription
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw .noSoundServer(server: serverDescription, reason: "libpulse could not create its mainloop")
        }
        self.mainloop = mainloop
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        pa_threaded_mainloop_lock(mainloop)
        context = pa_context_new(pa_threaded_mainloop_get_api(mainloop), applicationName)
        guard let context else {
            pa_threaded_mainloop_unlock(mainloop)
            close()
            throw .noSoundServer(server: serverDescription, reason: "libpulse could not create a context")
        }
        pa_context_set_state_callback(context, { _, userdata in
            PulseContext.from(userdata).stateChanged()
        }, userdata)
        var failure: AudioDeviceError?
        if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            failure = .noSoundServer(server: serverDescription, reason: Self.errorText(pa_context_errno(context)))
        } else if pa_threaded_mainloop_start(mainloop) < 0 {
            failure = .noSoundServer(server: serverDescription, reason: "libpulse could not start its thread")
        } else {
            let ready = wait(timeout: timeout) {
                let state = pa_context_get_state(context)
                return state == PA_CONTEXT_READY || PA_CONTEXT_IS_GOOD(state) == 0
            }
            if !ready {
                failure = .noSoundServer(server: serverDescription, reason: "it did not answer within \(Int(timeout.rounded(.up))) s")
            } else if pa_context_get_state(context) != PA_CONTEXT_READY {
                failure = .noSoundServer(server: serverDescription, reason: Self.errorText(pa_context_errno(context)))
            } else {
                wasReady = true
                answered.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            }
        }
        pa_threaded_mainloop_unlock(mainloop)
        if let failure {
            close()
            throw failure
        }
    }

    deinit {
        close()
        pa_threaded_mainloop_free(mainloop)
    }

    /// Disconnects and stops the mainloop thread. Safe to call more than once. From a callback (the mainloop
    /// thread, which cannot stop itself) the work is handed to another thread.
    func close() {
        if pa_threaded_mainloop_in_thread(mainloop) != 0 {
            DispatchQueue.global().async { self.close() }
            return
        }
        pa_threaded_mainloop_lock(mainloop)
        if isClosed {
            pa_threaded_mainloop_unlock(mainloop)
            return
        }
        isClosed = true
        onConnectionLost = nil
        onEvent = nil
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
            self.context = nil
        }
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
    }

    /// Runs `body` with the mainloop lock held (from any thread but the mainloop's own).
    func withLock<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// Waits, with the lock held, until `done()` is true or `timeout` seconds pass; true when done.
    /// Callbacks that change what `done` reads must call `signal()`.
    func wait(timeout: TimeInterval, until done: () -> Bool) -> Bool {
        if done() { return true }
        guard let context else { return false }
        let deadline = pa_rtclock_now() + pa_usec_t(timeout * 1_000_000)
        let timer = pa_context_rttime_new(context, deadline, { _, _, _, userdata in
            pa_threaded_mainloop_signal(OpaquePointer(userdata), 0)
        }, UnsafeMutableRawPointer(mainloop))
        defer {
            if let timer, let api = pa_threaded_mainloop_get_api(mainloop) { api.pointee.time_free(timer) }
        }
        while !done() {
            if pa_rtclock_now() >= deadline { return false }
            pa_threaded_mainloop_wait(mainloop)
        }
        return true
    }

    /// Wakes every `wait`; call with the lock held (callbacks hold it already).
    func signal() {
        pa_threaded_mainloop_signal(mainloop, 0)
    }

    /// Waits for an operation to finish (lock held), then releases it; false on timeout or when there was none.
    @discardableResult
    func finish(_ operation: OpaquePointer?) -> Bool {
        guard let operation else { return false }
        defer { pa_operation_unref(operation) }
        let finished = wait(timeout: Self.timeout) { pa_operation_get_state(operation) != PA_OPERATION_RUNNING }
        if !finished { pa_operation_cancel(operation) }
        return finished
    }

    /// Asks the server for events about `mask` (`PA_SUBSCRIPTION_MASK_*` bits), delivered to `onEvent`;
    /// call with the lock held.
    func subscribe(_ mask: UInt32) throws(AudioDeviceError) {
        guard let context else { throw .connectionLost(reason: "The connection is closed.") }
        pa_context_set_subscribe_callback(context, { _, type, index, userdata in
            let facility = type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
            let kind = type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
            PulseContext.from(userdata).onEvent?(facility, kind, index)
        }, Unmanaged.passUnretained(self).toOpaque())
        let operation = pa_context_subscribe(context, pa_subscription_mask_t(mask), { _, _, userdata in
            PulseContext.from(userdata).signal()
        }, Unmanaged.passUnretained(self).toOpaque())
        guard finish(operation), isConnected else {
            throw .connectionLost(reason: "Subscribing to device events failed: \(lastError).")
        }
    }

    /// Asks the server a question it answers at once (its info), unless an earlier one is still unanswered; the
    /// answer updates `lastAnswer`. Never waits; call with the lock held.
    func ping() {
        guard let context, !isPinging, isConnected else { return }
        let operation = pa_context_get_server_info(context, { _, info, userdata in
            let pulseContext = PulseContext.from(userdata)
            pulseContext.isPinging = false
            guard let info else { return }
            let record = PulseServerRecord(info.pointee)
            pulseContext.pingedDefaultSink.withLock { $0 = record.defaultSinkName }
            pulseContext.answeredByPipeWire.store(record.serverName.contains("PipeWire"), ordering: .relaxed)
            pulseContext.answered.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }, Unmanaged.passUnretained(self).toOpaque())
        guard let operation else { return }
        isPinging = true
        pa_operation_unref(operation)
    }

    /// When the server last answered a `ping()` (or the connection became ready), in `DispatchTime` nanoseconds.
    /// Safe from any thread.
    var lastAnswer: UInt64 { answered.load(ordering: .relaxed) }

    /// Whether the server is PipeWire's pulse server, as the last answer to a `ping()` said (false before one).
    /// Safe from any thread.
    var isPipeWire: Bool { answeredByPipeWire.load(ordering: .relaxed) }

    /// The default output as the last answer to a `ping()` named it: nil before the first answer, or when the
    /// server has no output. Safe from any thread.
    var defaultSinkName: String? { pingedDefaultSink.withLock { $0 } }

    /// Whether the connection is still up; call with the lock held.
    var isConnected: Bool {
        guard let context else { return false }
        return pa_context_get_state(context) == PA_CONTEXT_READY
    }

    /// The server's last error as text; call with the lock held.
    var lastError: String {
        guard let context else { return "the connection is closed" }
        return Self.errorText(pa_context_errno(context))
    }

    /// The server's last error code (`PA_ERR_*`); call with the lock held.
    var lastErrorCode: Int32 {
        guard let context else { return Int32(PA_ERR_CONNECTIONTERMINATED.rawValue) }
        return pa_context_errno(context)
    }

    private func stateChanged() {
        signal()
        guard let context, wasReady else { return }
        let state = pa_context_get_state(context)
        if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
            wasReady = false
            onConnectionLost?(.connectionLost(reason: "The server closed the connection: \(Self.errorText(pa_context_errno(context)))."))
        }
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> PulseContext {
        Unmanaged<PulseContext>.fromOpaque(userdata!).takeUnretainedValue()
    }

    static func errorText(_ code: Int32) -> String {
        pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// Where libpulse looks for the server, for error messages.
    static var serverDescription: String {
        if let server = ProcessInfo.processInfo.environment["PULSE_SERVER"], !server.isEmpty { return server }
        return "the default location"
    }
}
