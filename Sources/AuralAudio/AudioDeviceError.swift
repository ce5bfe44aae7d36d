import Foundation

/// Why the sound server or one of its devices could not be used: for the microphone, the machine's own
/// output, device lists and the device monitor.
///
/// File errors are `AudioSourceError`; this type covers what only live audio has: a server that is not
/// running, a device that does not exist or goes away, a connection that drops. Every case has a
/// description, a failure reason and a recovery suggestion through `LocalizedError`.
public enum AudioDeviceError: Error, Sendable, Equatable {
    /// No PulseAudio-compatible sound server answered (PulseAudio, or PipeWire through pipewire-pulse);
    /// `server` is where libpulse looked (the value of `PULSE_SERVER`, or "the default location"),
    /// `reason` what libpulse said.
    case noSoundServer(server: String, reason: String)
    /// No input, output or monitor has this name, or no application plays with this index.
    case deviceNotFound(name: String)
    /// The device (or the application's output) went away while it was being captured. Buffers delivered
    /// before are kept; the capture stream ends with this error.
    case deviceDisappeared(name: String)
    /// The connection to the sound server broke after it was established (the server stopped or crashed).
    case connectionLost(reason: String)
    /// The server refused to record (an unsupported format, too many streams, a protocol error);
    /// `reason` is the server's error text.
    case streamFailed(device: String, reason: String)
    /// The server stopped answering during a capture: no audio and no reply to the capture's pings for
    /// `seconds` (`LiveCaptureOptions.stallTimeout`), as when it is frozen (stopped, hung, or starved of CPU).
    case serverNotResponding(seconds: TimeInterval)
}

extension AudioDeviceError: LocalizedError {
    /// One sentence saying what went wrong, naming the server or device.
    public var errorDescription: String? {
        switch self {
        case .noSoundServer:
            return "No sound server is running."
        case .deviceNotFound(let name):
            return "There is no audio device named \"\(name)\"."
        case .deviceDisappeared(let name):
            return "The audio device \"\(name)\" went away during the capture."
        case .connectionLost:
            return "The connection to the sound server was lost."
        case .streamFailed(let device, _):
            return "The sound server could not record from \"\(device)\"."
        case .serverNotResponding:
            return "The sound server stopped responding during the capture."
        }
    }

    /// The evidence: where the library looked and what the server said.
    public var failureReason: String? {
        switch self {
        case .noSoundServer(let server, let reason):
            return "Connecting to the PulseAudio server at \(server) failed: \(reason)."
        case .deviceNotFound(let name):
            return "The sound server lists no input, output, monitor or playing application called \"\(name)\"."
        case .deviceDisappeared(let name):
            return "The sound server removed \"\(name)\" (unplugged, unloaded, or the application stopped playing)."
        case .connectionLost(let reason):
            return reason
        case .streamFailed(_, let reason):
            return reason
        case .serverNotResponding(let seconds):
            return "For \(Self.format(seconds)) s the server delivered no audio and answered no request."
        }
    }

    /// What the user can do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .noSoundServer:
            return "Start the sound server (PulseAudio, or PipeWire with its pipewire-pulse service), or set PULSE_SERVER to its socket, for example unix:/run/user/1000/pulse/native."
        case .deviceNotFound:
            return "Choose a name from AudioDevices.list() (its inputs, outputs and applications), or leave the device out to use the default."
        case .deviceDisappeared:
            return "Reconnect the device and start again, or capture from the default input, which follows device changes."
        case .connectionLost:
            return "Check that the sound server is still running (pactl info) and start the capture again."
        case .streamFailed:
            return "Check the device with 'pactl list sources short', or try the default device."
        case .serverNotResponding:
            return "Check that the sound server is running and not suspended (pactl info), then start the capture again; with LiveCaptureOptions.reconnects the capture resumes by itself when the server answers again."
        }
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
