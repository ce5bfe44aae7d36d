@testable import AuralAudio
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// Every test that talks to the sound server lives in a suite nested in this one, so they run one at a time:
/// they share the daemon's default devices, which some of them change.
@Suite("PulseAudio", .serialized, .exclusiveVirtualMicrophone)
struct PulseAudioTests {}

/// Drives the private PulseAudio daemon that `scripts/with-pulse` starts for the tests: loads and unloads
/// virtual devices, plays recordings in real time with paplay, and records what a source delivers.
enum PulseHarness {
    /// Fails the test unless it runs under `scripts/with-pulse` (as `make test` and `.ci/run` do), so the tests
    /// never load modules into, or change the defaults of, a developer's real sound server.
    static func requirePrivateDaemon() throws {
        let environment = ProcessInfo.processInfo.environment
        try #require(
            environment["AURALKIT_TEST_PULSE"] == "1" && environment["PULSE_SERVER"] != nil,
            "run the tests through scripts/with-pulse (make test does), which starts a private PulseAudio daemon")
    }

    /// Runs a program to completion (at most `timeout` seconds) and returns its standard output.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], timeout: TimeInterval = 10) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        // Foundation can miss a child's exit while other tests spawn processes (a full run's pactl "did not finish
        // within 10 s"): `exitStatus(within:)` notices it.
        guard let status = process.exitStatus(within: timeout) else {
            process.terminate()
            throw HarnessError("\(program) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw HarnessError("\(program) \(arguments.joined(separator: " ")) exited with \(status)")
        }
        return output
    }

    @discardableResult
    static func pactl(_ arguments: String...) throws -> String {
        try run("pactl", arguments)
    }

    /// The server's default output and input as `pactl info` reports them, for failure messages: on PipeWire
    /// the session manager (WirePlumber) applies a default, so a change the test asked for may not have landed.
    static func defaults() -> String {
        let info = (try? pactl("info")) ?? ""
        return info.split(separator: "\n").filter { $0.hasPrefix("Default Sink") || $0.hasPrefix("Default Source") }
            .joined(separator: "; ")
    }

    /// Loads a module and returns its index, for `unload`.
    static func load(_ module: String, _ arguments: String...) throws -> String {
        try run("pactl", ["load-module", module] + arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func unload(_ index: String) {
        _ = try? run("pactl", ["unload-module", index])
    }

    /// A null sink `name` (16 kHz mono s16, like the daemon's own) and a clocked microphone `microphone` made
    /// from its monitor, when given. Returns module indexes to unload, last first.
    static func virtualMicrophone(feed name: String, microphone: String) throws -> [String] {
        let sink = try load("module-null-sink", "sink_name=\(name)", "rate=16000", "channels=1", "format=s16le")
        let source = try load(
            "module-remap-source", "master=\(name).monitor", "source_name=\(microphone)",
            "source_properties=device.description=\(microphone)")
        return [source, sink]
    }

    /// Starts `paplay` on a recording; the caller waits for or ends it.
    static func play(_ file: URL, device: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["paplay", "--device=\(device)", file.path]
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        return process
    }

    /// Keeps a low-latency recorder on `source` so a PulseAudio null sink renders in small blocks and new
    /// recorders get data within milliseconds (an idle null sink renders 2 s at a time).
    static func keeper(on source: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["parec", "--device=\(source)", "--latency-msec=20"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        return process
    }

    /// Kills a player or recorder at once (paplay drains its stream on SIGTERM, so it would keep playing into the
    /// next test) and reaps it.
    static func kill(_ process: Process) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitForExit()  // Foundation's waitUntilExit can miss a killed child's exit and wait forever
    }

    /// Waits for a process to exit, at most `timeout` seconds; false on timeout.
    static func wait(for process: Process, timeout: TimeInterval) async -> Bool {
        await Poll.until(timeout: timeout, every: .milliseconds(10)) { !process.isRunning }
    }

    /// Whether the tests run under `scripts/with-pipewire` (PipeWire through pipewire-pulse) rather than PulseAudio.
    static var isPipeWire: Bool {
        ProcessInfo.processInfo.environment["AURALKIT_TEST_SOUND_SERVER"] == "pipewire"
    }

    /// The private PipeWire's graph process (`pipewire`) under `scripts/with-pipewire`; nil under PulseAudio.
    static var pipeWireGraphProcess: pid_t? {
        ProcessInfo.processInfo.environment["AURALKIT_TEST_PIPEWIRE_GRAPH_PID"].flatMap { pid_t($0) }
    }

    /// Runs `body` with a fresh second server (`startExtraDaemon()`): its address and its process id, which the
    /// body may freeze. Afterwards the server is thawed, stopped and its folder removed, also when `body` throws.
    static func withExtraDaemon(_ body: (_ server: String, _ pid: pid_t) async throws -> Void) async throws {
        let daemon = try await startExtraDaemon()
        let pid = daemon.process.processIdentifier
        defer {
            Glibc.kill(pid, SIGCONT)
            kill(daemon.process)
            try? FileManager.default.removeItem(at: daemon.directory)
        }
        try await body(daemon.server, pid)
    }

    /// A second, private sound server that a test may stop: returns its server address and process. Given the
    /// `directory` of one that was killed, starts a new one there, on the same socket (a restart).
    ///
    /// Under PulseAudio it is a daemon of its own with a null sink as its default output and that sink's monitor as
    /// its default input. Under PipeWire it is a second pipewire-pulse on the private PipeWire's graph, with a socket
    /// of its own: the process a libpulse client talks to, which the test freezes or kills (the graph, the shared
    /// devices and the other tests' connections stay up).
    static func startExtraDaemon(in existing: URL? = nil) async throws -> (server: String, process: Process, directory: URL) {
        let directory = existing
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-extra-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("run/pulse"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("home"), withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("run/pulse/native").path
        // A killed daemon leaves its socket file behind; the new one must not be mistaken for ready.
        try? FileManager.default.removeItem(atPath: socket)
        if isPipeWire {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["pipewire-pulse"]
            var environment = ProcessInfo.processInfo.environment
            // The socket goes to PULSE_RUNTIME_PATH; XDG_RUNTIME_DIR stays the private PipeWire's, to find its graph.
            environment["PULSE_RUNTIME_PATH"] = directory.appendingPathComponent("run/pulse").path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runWithDefaultSignals()
            try await waitUntilAnswering(socket, "the extra pipewire-pulse did not start")
            return ("unix:\(socket)", process, directory)
        }
        let config = """
            load-module module-native-protocol-unix auth-anonymous=1 socket=\(socket)
            load-module module-null-sink sink_name=extra_speaker rate=16000 channels=1 format=s16le
            set-default-sink extra_speaker
            set-default-source extra_speaker.monitor

            """
        try config.write(to: directory.appendingPathComponent("pulse.pa"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "pulseaudio", "--daemonize=no", "--system=false", "--exit-idle-time=-1", "--use-pid-file=no", "-n",
            "-F", directory.appendingPathComponent("pulse.pa").path, "--log-target=file:\(directory.path)/pulse.log",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
        environment["HOME"] = directory.appendingPathComponent("home").path
        process.environment = environment
        try process.runWithDefaultSignals()
        try await waitUntilAnswering(socket, "the extra PulseAudio daemon did not start")
        return ("unix:\(socket)", process, directory)
    }

    /// Waits up to 5 s for a sound server to answer `pactl info` on `socket`, else fails with `failure`. The socket
    /// file appears before the server answers on it (a CI run's capture on PipeWire found no server there).
    private static func waitUntilAnswering(_ socket: String, _ failure: Comment) async throws {
        let ready = await Poll.until(timeout: 5) {
            FileManager.default.fileExists(atPath: socket)
                && (try? run("pactl", ["--server=unix:\(socket)", "info"], timeout: 2)) != nil
        }
        try #require(ready, failure)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Consumes an audio stream in a task and keeps every buffer, with the time each arrived.
///
/// The task runs at high priority, as an app's audio consumer would: on Linux Swift runs each priority on its own
/// dispatch root queue and threads, so buffers are taken, and timed, as they arrive, not after the queue of ready
/// test jobs at the default priority that the other suites keep full.
final class Recording: Sendable {
    private struct State {
        var buffers: [AudioBuffer] = []
        var arrivals: [ContinuousClock.Instant] = []
        var finished = false
        var error: Error?
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncThrowingStream<AudioBuffer, Error>) {
        let task = Task(priority: .high) { [self] in
            do {
                for try await buffer in stream {
                    state.withLock {
                        $0.buffers.append(buffer)
                        $0.arrivals.append(ContinuousClock.now)
                    }
                }
                state.withLock { $0.finished = true }
            } catch {
                state.withLock {
                    $0.error = error
                    $0.finished = true
                }
            }
        }
        self.task.withLock { $0 = task }
    }

    var buffers: [AudioBuffer] { state.withLock { $0.buffers } }
    var samples: [Float] { state.withLock { $0.buffers.flatMap(\.samples) } }
    var firstArrival: ContinuousClock.Instant? { state.withLock { $0.arrivals.first } }
    var isFinished: Bool { state.withLock { $0.finished } }
    var error: Error? { state.withLock { $0.error } }
    var frameCount: Int { state.withLock { $0.buffers.reduce(0) { $0 + $1.frameCount } } }

    /// Waits until at least `frames` frames have arrived, at most `timeout` seconds.
    func waitForFrames(_ frames: Int, timeout: TimeInterval) async -> Bool {
        await Poll.until(timeout: timeout) { frameCount >= frames || isFinished }
            && frameCount >= frames
    }

    /// Waits until the stream finished (normally or with an error), at most `timeout` seconds.
    func waitForEnd(timeout: TimeInterval) async -> Bool {
        await Poll.until(timeout: timeout) { isFinished }
    }
}

/// 16-bit PCM WAV files, read without the library, so the reference does not depend on the code under test.
enum ReferenceWAV {
    /// The first channel of a 16-bit PCM WAV file, as Float in -1..<1, and its sample rate.
    static func read(_ url: URL) throws -> (samples: [Float], sampleRate: Int) {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int {
            let low = Int(bytes[at])
            let high = Int(bytes[at + 1])
            return low + high * 256
        }
        func u32(_ at: Int) -> Int {
            let low = u16(at)
            let high = u16(at + 2)
            return low + high * 65_536
        }
        var offset = 12
        var rate = 0, channels = 1
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " {
                channels = u16(offset + 10)
                rate = u32(offset + 12)
                guard u16(offset + 22) == 16 else { throw HarnessError("\(url.lastPathComponent) is not 16-bit PCM") }
            } else if id == "data" {
                let end = min(offset + 8 + size, bytes.count)
                var samples: [Float] = []
                var at = offset + 8
                while at + 2 * channels <= end {
                    samples.append(Float(Int16(bitPattern: UInt16(u16(at)))) / 32768)
                    at += 2 * channels
                }
                return (samples, rate)
            }
            offset += 8 + size + (size & 1)
        }
        throw HarnessError("\(url.lastPathComponent) has no data chunk")
    }
}

/// Normalized cross-correlation between a recording and its source, after finding the lag.
enum Correlation {
    struct Alignment {
        /// `captured[i]` lines up with `reference[i - lag]`.
        var lag: Int
        /// NCC over the whole overlap.
        var ncc: Double
        /// Samples in the overlap.
        var overlap: Int
        /// The lowest NCC over one-second windows of the overlap that hold sound.
        var worstWindow: Double
        var windows: Int
    }

    /// Aligns `captured` with `reference` (both at `rate`), first on 16× block means, then sample by sample; seconds
    /// of arithmetic on a long recording, so it runs off the cooperative pool.
    static func align(_ captured: [Float], with reference: [Float], rate: Int, minimumOverlap: Int) async throws -> Alignment {
        try await offPool { alignHere(captured, with: reference, rate: rate, minimumOverlap: minimumOverlap) }
    }

    private static func alignHere(_ captured: [Float], with reference: [Float], rate: Int, minimumOverlap: Int) -> Alignment {
        let factor = 16
        func decimate(_ x: [Float]) -> [Float] {
            var out: [Float] = []
            var start = 0
            while start + factor <= x.count {
                var sum: Float = 0
                for i in start..<(start + factor) { sum += x[i] }
                out.append(sum / Float(factor))
                start += factor
            }
            return out
        }
        let c = decimate(captured), r = decimate(reference)
        let minimum = max(minimumOverlap / factor, 1)
        var best = (lag: 0, score: -Double.infinity)
        if c.count >= minimum && r.count >= minimum {
            for lag in -(r.count - minimum)...(c.count - minimum) {
                let score = ncc(c, r, lag: lag)
                if score > best.score { best = (lag, score) }
            }
        }
        var fine = (lag: best.lag * factor, score: -Double.infinity)
        for lag in (best.lag * factor - 2 * factor)...(best.lag * factor + 2 * factor) {
            let score = ncc(captured, reference, lag: lag)
            if score > fine.score { fine = (lag, score) }
        }
        let start = max(0, fine.lag), end = min(captured.count, reference.count + fine.lag)
        var worst = 1.0, windows = 0
        var window = start
        while window + rate <= end {
            let piece = Array(reference[(window - fine.lag)..<(window - fine.lag + rate)])
            let energy = piece.reduce(0) { $0 + Double($1 * $1) } / Double(rate)
            if energy.squareRoot() > 0.005 {
                worst = min(worst, ncc(Array(captured[window..<window + rate]), piece, lag: 0))
                windows += 1
            }
            window += rate
        }
        return Alignment(lag: fine.lag, ncc: fine.score, overlap: max(0, end - start), worstWindow: worst, windows: windows)
    }

    /// NCC of `a[i]` against `b[i - lag]` over their overlap.
    static func ncc(_ a: [Float], _ b: [Float], lag: Int) -> Double {
        let start = max(0, lag), end = min(a.count, b.count + lag)
        guard end > start else { return -1 }
        var ab = 0.0, aa = 0.0, bb = 0.0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in start..<end {
                    let x = Double(a[i]), y = Double(b[i - lag])
                    ab += x * y
                    aa += x * x
                    bb += y * y
                }
            }
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }
}
