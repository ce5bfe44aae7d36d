import Foundation

/// How a live capture (`PulseMicrophoneSource`, `PulseSystemAudioSource`) copes with a sound server that freezes,
/// crashes or restarts.
///
/// ```swift
/// let options = LiveCaptureOptions(stallTimeout: 2, reconnects: true)
/// let microphone = PulseMicrophoneSource(options: options)
/// for try await buffer in try microphone.start() {
///     // After a restart of the server, buffers come again; `buffer.startTime` jumps by the time lost.
/// }
/// ```
public struct LiveCaptureOptions: Sendable, Hashable {
    /// Seconds after which a capture that gets no audio, and no answer to the pings it sends the server every
    /// 0.1 s, counts the server as frozen: it ends with `AudioDeviceError.serverNotResponding`, or
    /// reconnects with `reconnects`. On PulseAudio a server that answers is never a stall, so an idle output that
    /// is slow to deliver its first buffer is not an error. On PipeWire (pipewire-pulse), whose devices deliver
    /// audio all the time, no audio for this long is a stall even when pings are answered: that is how a frozen
    /// graph shows. Default 2.
    public var stallTimeout: TimeInterval
    /// Whether a capture whose server goes away (`connectionLost`) or freezes (`serverNotResponding`) connects
    /// again, reopens its streams on the same devices, and goes on. The buffers after the gap start later by the
    /// time lost (measured on the wall clock, to within a few tens of milliseconds), so the gap shows in
    /// `AudioBuffer.startTime`. Device errors (`deviceDisappeared`) still end the stream. Default false.
    public var reconnects: Bool
    /// With `reconnects`, seconds to keep trying before the stream ends with the error that stopped it.
    /// Default 30.
    public var reconnectTimeout: TimeInterval

    /// Options; the defaults end a capture 2 s into a freeze and never reconnect.
    public init(stallTimeout: TimeInterval = 2, reconnects: Bool = false, reconnectTimeout: TimeInterval = 30) {
        self.stallTimeout = stallTimeout
        self.reconnects = reconnects
        self.reconnectTimeout = reconnectTimeout
    }
}
