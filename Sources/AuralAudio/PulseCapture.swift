import Foundation
import Synchronization

/// Wakes a capture's delivery thread and keeps why the capture ended (the first reason wins), and whether a
/// stop was asked for (which a reconnect gives way to).
final class CaptureSignal: Sendable {
    /// Why a capture ended: `error` is nil for a normal end (stopped, or the captured application finished).
    struct Ending: Sendable {
        var error: AudioDeviceError?
    }

    private struct State {
        var ending: Ending?
        var stopRequested = false
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    /// Wakes the delivery thread (never blocks; safe on the mainloop thread).
    func wake() {
        semaphore.signal()
    }

    /// Records the end of the capture, unless it has ended already, and wakes the delivery thread. A nil `error`
    /// (a stop, or the end of what was captured) also tells a reconnect to give up.
    func end(_ error: AudioDeviceError?) {
        state.withLock {
            if $0.ending == nil { $0.ending = Ending(error: error) }
            if error == nil { $0.stopRequested = true }
        }
        semaphore.signal()
    }

    /// Why the capture ended, or nil while it runs.
    var reason: Ending? { state.withLock { $0.ending } }

    /// Whether the capture was asked to end normally (`end(nil)`).
    var isStopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Forgets a failure, so a capture that reconnects can run on; false, changing nothing, after a stop.
    func clearFailure() -> Bool {
        state.withLock {
            guard !$0.stopRequested else { return false }
            $0.ending = nil
            return true
        }
    }

    /// Sleeps until woken or `timeout` seconds pass.
    func waitForWork(timeout: TimeInterval) {
        _ = semaphore.wait(timeout: .now() + timeout)
    }
}

extension AudioDeviceError {
    /// Whether the server, not a device, failed: the faults a capture may reconnect after.
    var isServerFault: Bool {
        switch self {
        case .connectionLost, .serverNotResponding: true
        default: false
        }
    }
}

/// A running capture: the server connection, its record streams, the ring they fill, and the thread that turns
/// ring contents into `AudioBuffer`s.
///
/// Audio flows: mainloop thread (read callback) → `SampleRing` → delivery thread → `AsyncThrowingStream`. The
/// delivery thread also pings the server (to tell a frozen server from a quiet one), reconnects when asked to,
/// and tears everything down when the capture ends, so no `pa_*` object is freed on the mainloop thread and
/// nothing blocks Swift's cooperative pool.
final class PulseCapture: @unchecked Sendable {
    /// Buffers the stream holds for a slow consumer before new ones are dropped (and counted): about 5 s, since
    /// buffers are one 20 ms fragment each.
    static let streamBufferLimit = 256
    /// Seconds of audio the ring holds between the capture callback and the delivery thread: twice what a
    /// `PlaybackMixer` may hold back waiting for a late application stream, whose own ring takes the burst it
    /// then delivers (PipeWire's were up to 2 s).
    static let ringDuration = 2 * PlaybackMixer.maximumLag
    /// Seconds between pings while the capture runs (each answer also names the default output, which a
    /// capture of `.defaultOutput` follows).
    static let pingInterval = 0.1
    /// Seconds a capture of the default output whose device went away waits for the server to name another
    /// default before it ends with `deviceDisappeared`: PipeWire names none for a moment, until its session
    /// manager (WirePlumber) has chosen the next one.
    static let defaultOutputGrace = 1.0
    /// Seconds one reconnect attempt may wait for the server, and between attempts.
    static let reconnectAttemptTimeout = 1.0
    static let reconnectRetryInterval = 0.25

    /// What `open` makes on a connection: the record streams (the first one's device is `deviceName`) and, for
    /// an output's playback without some processes, the mixer whose clock the ring is.
    struct Streams {
        var records: [PulseRecordStream]
        var mixer: PlaybackMixer?
        /// The default output when the streams were opened, when they follow the default output: once the server
        /// names another default (or kills a stream), the streams are closed and `open` runs again.
        var followedOutput: String?
    }

    /// Opens a capture's streams on a new connection into the capture's ring; called again after a reconnect.
    typealias Opener = @Sendable (PulseContext, SampleRing, CaptureSignal) throws(AudioDeviceError) -> Streams

    private struct Connection {
        var context: PulseContext
        var streams: Streams
    }

    let format: AudioFormat
    let ring: SampleRing
    let signal: CaptureSignal
    let options: LiveCaptureOptions
    private let server: String?
    private let open: Opener
    private let connection: Mutex<Connection?>
    private let streamDroppedFrames = Atomic<Int>(0)

    /// Connects (blocking, at most `PulseContext.timeout`), then lets `open` create the streams.
    init(format: AudioFormat, server: String?, options: LiveCaptureOptions, open: @escaping Opener) throws(AudioDeviceError) {
        let ring = SampleRing(minimumCapacity: Int(Double(format.sampleRate * format.channelCount) * Self.ringDuration))
        let signal = CaptureSignal()
        self.format = format
        self.ring = ring
        self.signal = signal
        self.options = options
        self.server = server
        self.open = open
        connection = Mutex(try Self.connect(server: server, timeout: PulseContext.timeout, ring: ring, signal: signal, open: open))
    }

    private static func connect(
        server: String?, timeout: TimeInterval, ring: SampleRing, signal: CaptureSignal, open: Opener
    ) throws(AudioDeviceError) -> Connection {
        let context = try PulseContext(server: server, timeout: timeout)
        do {
            let streams = try open(context, ring, signal)
            context.withLock { context.onConnectionLost = { error in signal.end(error) } }
            return Connection(context: context, streams: streams)
        } catch {
            context.close()
            throw error
        }
    }

    /// Frames lost because the consumer fell behind: dropped at the ring (the delivery thread was late) or at the
    /// stream's buffer (the `for await` loop was late).
    var overrunFrameCount: Int {
        ring.droppedSamples / max(format.channelCount, 1) + streamDroppedFrames.load(ordering: .relaxed)
    }

    /// The source the first stream records now (nil while reconnecting).
    var deviceName: String? {
        connection.withLock { $0?.streams.records.first }?.deviceName
    }

    /// Starts the delivery thread and returns the buffers.
    func start() -> AsyncThrowingStream<AudioBuffer, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: AudioBuffer.self, throwing: Error.self, bufferingPolicy: .bufferingOldest(Self.streamBufferLimit))
        let signal = self.signal
        continuation.onTermination = { _ in signal.end(nil) }
        let thread = Thread { self.deliver(to: continuation) }
        thread.name = "AuralAudio delivery"
        thread.start()
        return stream
    }

    /// Ends the capture: what is already in the ring is still delivered, then the stream finishes.
    func stop() {
        signal.end(nil)
    }

    private func deliver(to continuation: AsyncThrowingStream<AudioBuffer, Error>.Continuation) {
        let channels = format.channelCount
        let rate = Double(format.sampleRate)
        // Frames delivered, plus the frames of the gaps left by reconnects.
        var position = 0
        // When the server last delivered (at first: when delivery began, or the last reconnect): the ring grew.
        // Not when a buffer went out, since a mixer may hold the monitor's audio for a late application stream.
        var lastArrival = Self.now
        var writtenBefore = ring.writtenSamples
        var lastPing: UInt64 = 0
        // Since when the followed output's stream was killed with no default output named (nil: it is not).
        var withoutDefaultSince: UInt64?
        while true {
            let ending = signal.reason
            let mixer = connection.withLock { $0?.streams.mixer }
            mixer?.refreshIfNeeded()
            let samples = mixer?.mix(clock: ring, draining: ending != nil) ?? ring.read(maximum: ring.capacity, granule: channels)
            let now = Self.now
            let written = ring.writtenSamples
            if written != writtenBefore {
                writtenBefore = written
                lastArrival = now
            }
            // Buffers of one fragment each, whatever the server's period: PipeWire delivers a whole graph period
            // (64 ms and more) at a time where PulseAudio delivers the 20 ms asked for, and the stream's limit,
            // `streamBufferLimit`, counts buffers.
            let fragment = max(Int(rate * PulseRecordStream.fragmentDuration), 1) * channels
            for chunkStart in stride(from: 0, to: samples.count, by: fragment) {
                let chunk = Array(samples[chunkStart..<min(chunkStart + fragment, samples.count)])
                let frames = chunk.count / channels
                // Dropped frames still count, so a buffer's time stays true to the audio after an overrun.
                let startTime = Double(position + ring.droppedSamples / channels) / rate
                position += frames
                if case .dropped = continuation.yield(AudioBuffer(samples: chunk, format: format, startTime: startTime)) {
                    streamDroppedFrames.add(frames, ordering: .relaxed)
                }
            }
            if let ending, ring.available < channels {
                closeConnection()
                if let error = ending.error, options.reconnects, error.isServerFault {
                    if reconnect() {
                        // The new streams record from now on; from the last buffer before the fault to now
                        // nothing was captured. (Not from the first new buffer: an idle output may deliver it
                        // seconds late, in a burst that holds the audio since the stream opened.)
                        let reconnected = Self.now
                        position += Int((Double(reconnected - min(lastArrival, reconnected)) / 1e9 * rate).rounded())
                        lastArrival = reconnected
                        continue
                    }
                    // Stopped while reconnecting: what was captured is complete, and the stop was asked for.
                    if signal.isStopRequested {
                        continuation.finish()
                        return
                    }
                }
                if let error = ending.error {
                    continuation.finish(throwing: error)
                } else {
                    continuation.finish()
                }
                return
            }
            if ending == nil, let current = connection.withLock({ $0 }) {
                let context = current.context
                if now - lastPing >= Self.nanoseconds(Self.pingInterval) {
                    context.withLock { context.ping() }
                    lastPing = now
                }
                // An answer to a ping is a sign of life too: an idle PulseAudio null sink renders 2 s at a time.
                // Not on PipeWire: pipewire-pulse answers while the graph (the pipewire process) is frozen, and
                // there every device delivers audio all the time (silence when idle), so only audio counts.
                let heard = context.isPipeWire ? lastArrival : max(lastArrival, context.lastAnswer)
                if now > heard, now - heard > Self.nanoseconds(options.stallTimeout) {
                    signal.end(.serverNotResponding(seconds: options.stallTimeout))
                    continue
                }
                if let followed = current.streams.followedOutput {
                    let killed = current.streams.records.contains { $0.wasKilled }
                    let defaultSink = context.defaultSinkName
                    withoutDefaultSince = defaultSink == nil && killed ? withoutDefaultSince ?? now : nil
                    switch defaultSink {
                    case .some(let name) where name != followed:
                        reopen(current)
                    case nil where killed:
                        if let since = withoutDefaultSince, now - since > Self.nanoseconds(Self.defaultOutputGrace) {
                            signal.end(.deviceDisappeared(name: followed))
                        }
                    default:
                        break  // Killed with the old default still named: the next ping names the new one.
                    }
                }
            }
            signal.waitForWork(timeout: 0.1)
        }
    }

    /// Connects again and reopens the streams, trying until it works, `options.reconnectTimeout` passes, or a
    /// stop is asked for; true when capture goes on.
    private func reconnect() -> Bool {
        let deadline = Self.now + Self.nanoseconds(options.reconnectTimeout)
        while Self.now < deadline {
            guard signal.clearFailure() else { return false }
            if let new = try? Self.connect(
                server: server, timeout: Self.reconnectAttemptTimeout, ring: ring, signal: signal, open: open)
            {
                connection.withLock { $0 = new }
                return true
            }
            signal.waitForWork(timeout: Self.reconnectRetryInterval)
        }
        return false
    }

    /// Moves to the new default output: closes the streams (what they captured stays in the ring, ahead of what
    /// the new ones capture) and opens them again on the same connection.
    private func reopen(_ current: Connection) {
        current.streams.mixer?.close()
        for stream in current.streams.records { stream.close() }
        do throws(AudioDeviceError) {
            let streams = try open(current.context, ring, signal)
            connection.withLock { $0?.streams = streams }
        } catch {
            connection.withLock { $0?.streams = Streams(records: [], mixer: nil, followedOutput: nil) }
            signal.end(error)
        }
    }

    /// Closes the streams, the mixer and the connection (on the delivery thread, never the mainloop's).
    private func closeConnection() {
        guard let old = connection.withLock({ current in
            defer { current = nil }
            return current
        }) else { return }
        old.streams.mixer?.close()
        for stream in old.streams.records { stream.close() }
        old.context.close()
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        UInt64(max(seconds, 0) * 1e9)
    }
}

/// A source's current capture, which the microphone and system-audio sources hold the same way: replaced at each
/// `start()`, stopped by `stop()` and when the source is released, and asked for its overrun count.
final class PulseCaptureSlot: Sendable {
    private let capture = Mutex<PulseCapture?>(nil)

    deinit {
        stop()
    }

    /// The running capture, or nil before the first `start()`.
    var current: PulseCapture? {
        capture.withLock { $0 }
    }

    /// Makes `newCapture` current and starts its delivery; the caller stops the previous one first.
    func start(_ newCapture: PulseCapture) -> AsyncThrowingStream<AudioBuffer, Error> {
        capture.withLock { $0 = newCapture }
        return newCapture.start()
    }

    /// Ends the current capture, if any (see `PulseCapture.stop()`).
    func stop() {
        current?.stop()
    }

    /// Frames the current capture lost (0 when there is none).
    var overrunFrameCount: Int {
        current?.overrunFrameCount ?? 0
    }
}
