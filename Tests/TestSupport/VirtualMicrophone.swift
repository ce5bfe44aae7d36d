import Foundation
import Testing

/// The private PulseAudio daemon that `scripts/with-pulse` starts: its default input `virt_mic_clocked` hears what is
/// played into the sink `mic_feed`. Tests play a real recording there, in real time, as a person would speak.
public enum VirtualMicrophone {
    /// Whether this process runs under `scripts/with-pulse` (which sets `AURALKIT_TEST_PULSE=1` and `PULSE_SERVER`).
    public static var isAvailable: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["AURALKIT_TEST_PULSE"] == "1" && environment["PULSE_SERVER"] != nil
    }

    /// Starts playing `file` into the virtual microphone with `paplay`, after `delay` seconds; the caller waits for
    /// the process or ends it.
    public static func play(_ file: URL, delay: TimeInterval = 0) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep \(delay); exec paplay --device=mic_feed \"$0\"", file.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only against the private sound server of `scripts/with-pulse`.
    public static var requiresVirtualMicrophone: Self {
        .enabled(if: VirtualMicrophone.isAvailable, "run through scripts/with-pulse (make test does)")
    }
}
