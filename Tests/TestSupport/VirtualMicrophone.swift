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
        try process.runWithDefaultSignals()
        return process
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only against the private sound server of `scripts/with-pulse`.
    public static var requiresVirtualMicrophone: Self {
        .enabled(if: VirtualMicrophone.isAvailable, "run through scripts/with-pulse (make test does)")
    }
}

/// Gives the virtual microphone to one suite at a time, across every test target of the run: two recordings
/// played at once would mix. Suites in one target can nest in one `.serialized` suite; suites in different targets
/// (the session's live tests and `aural listen`'s) cannot, so each such root suite takes this trait.
public struct ExclusiveVirtualMicrophoneTrait: SuiteTrait, TestScoping {
    /// The suite as a whole holds the microphone, not each of its tests.
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await VirtualMicrophoneLock.shared.withPermit { try await function() }
    }
}

extension Trait where Self == ExclusiveVirtualMicrophoneTrait {
    /// The suite plays into the virtual microphone, and no other suite does meanwhile (see
    /// `ExclusiveVirtualMicrophoneTrait`).
    public static var exclusiveVirtualMicrophone: Self { ExclusiveVirtualMicrophoneTrait() }
}

/// The virtual microphone's lock: one suite at a time, first come, first served.
private enum VirtualMicrophoneLock {
    static let shared = AsyncSemaphore(permits: 1)
}
