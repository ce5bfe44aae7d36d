import AuralAudio
import AVFoundation
import Foundation
import TestSupport
import Testing

@Suite("AVAudioEngine")
struct AVAudioEngineTests {
    static let mono16k = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!

    /// The first second of a real recording, as a 16 kHz mono buffer.
    static func oneSecond() throws -> (samples: [Float], buffer: AVAudioPCMBuffer) {
        let samples = Array(try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples()[16_000..<32_000])
        return (samples, TestAudio.buffer(mono16k, channels: [samples]))
    }

    @Test("a player renders a scheduled buffer in real time to its tap, then calls its completion handler",
          .requiresFixtures(audio: ["beckett.wav"]))
    func playerRendersToItsTap() async throws {
        let (samples, buffer) = try Self.oneSecond()
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Self.mono16k)
        #expect(player.outputFormat(forBus: 0) == Self.mono16k)
        let recorder = TapRecorder()
        player.installTap(onBus: 0, bufferSize: 1_600, format: nil, block: recorder.block)
        let played = Flag()
        player.scheduleBuffer(buffer) { played.set() }
        player.play()
        #expect(player.lastRenderTime == nil)
        try engine.start()
        defer { engine.stop() }
        #expect(engine.isRunning && player.isPlaying)
        try #require(await Poll.until(timeout: 5) { played.isSet })
        #expect(await Poll.until(timeout: 2) { recorder.frameCount >= 19_200 })
        // Real time: one second of audio takes one second (and a render tick or two), not less, from the host time of
        // the first frame rendered to the handler's call. Both are taken on the render thread, so that a test's wait,
        // which lags when other tests hold the cooperative pool, does not count.
        let firstFrame = try #require(recorder.deliveries.first).hostTime
        let elapsed = Double(try #require(played.hostTime) - firstFrame) / 1e9
        #expect(elapsed >= 0.99 && elapsed < 1.5, "\(elapsed) s")

        let renderTime = try #require(player.lastRenderTime)
        #expect(renderTime.isSampleTimeValid && renderTime.sampleRate == 16_000 && renderTime.sampleTime >= 16_000)
        #expect(player.playerTime(forNodeTime: renderTime)?.sampleTime == renderTime.sampleTime)  // playing since time 0
        #expect(Array(recorder.samples.prefix(16_000)) == samples)
        #expect(recorder.samples[16_000..<19_200].allSatisfy { $0 == 0 })  // silence once the buffer is done
        #expect(recorder.deliveries.allSatisfy { $0.frames == 1_600 && $0.format == Self.mono16k })
        #expect(recorder.deliveries.first?.sampleTime == 0 && recorder.isContiguous)
        #expect(!recorder.sawMainThread)
    }

    @Test("stop() drops what is scheduled and calls every completion handler; a looping buffer plays until interrupted",
          .requiresFixtures(audio: ["beckett.wav"]))
    func stopAndLoops() async throws {
        let (_, buffer) = try Self.oneSecond()
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.connect(player, to: engine.mainMixerNode, format: Self.mono16k)
        let flags = (0..<3).map { _ in Flag() }
        player.scheduleBuffer(buffer, at: nil, options: .loops) { flags[0].set() }
        player.scheduleBuffer(buffer) { flags[1].set() }
        player.play()
        try engine.start()
        defer { engine.stop() }
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(!flags[0].isSet && !flags[1].isSet, "the looping buffer ended by itself")
        player.scheduleBuffer(buffer, at: nil, options: .interrupts) { flags[2].set() }
        #expect(flags[0].isSet && flags[1].isSet, "interrupted buffers' handlers were not called")
        player.stop()
        #expect(flags[2].isSet && !player.isPlaying)
        #expect(player.playerTime(forNodeTime: AVAudioTime(sampleTime: 0, atRate: 16_000)) == nil)
    }

    @Test("a tap on the input and start() give a clear error, without hanging, when there is no sound server")
    func noSoundServer() async throws {
        let output = try await offPool { try EngineChild.run(server: "unix:/nonexistent/pulse/native", expecting: "stop") }
        #expect(EngineChild.ranOneTest(output), "\(output)")
    }

    @Test("start() says so when the sound server has no input at all", .enabled(if: EngineChild.hasPulseAudio))
    func noInputDevice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avf-empty-\(UUID().uuidString)")
        let socket = directory.appendingPathComponent("native").path
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("home"), withIntermediateDirectories: true)
        try "load-module module-native-protocol-unix auth-anonymous=1 socket=\(socket)\n"
            .write(to: directory.appendingPathComponent("empty.pa"), atomically: true, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        daemon.arguments = ["pulseaudio", "--daemonize=no", "--system=false", "--exit-idle-time=-1", "--use-pid-file=no", "-n",
                            "-F", directory.appendingPathComponent("empty.pa").path, "--log-target=file:\(directory.path)/log"]
        daemon.environment = ["HOME": directory.appendingPathComponent("home").path, "XDG_RUNTIME_DIR": directory.path,
                              "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        try daemon.runWithDefaultSignals()
        defer {
            daemon.terminate()
            daemon.waitForExit(grace: 1)
            try? FileManager.default.removeItem(at: directory)
        }
        try #require(await Poll.until(timeout: 5) { FileManager.default.fileExists(atPath: socket) }, "pulseaudio did not start")
        let output = try await offPool { try EngineChild.run(server: "unix:\(socket)", expecting: "!dev") }
        #expect(EngineChild.ranOneTest(output), "\(output)")
    }
}

/// Runs the engine's no-device checks in a child process of this test binary, with `PULSE_SERVER` pointing where the
/// test says: the sound server is chosen per process, and changing it here would change it under every other suite.
enum EngineChild {
    static let environmentKey = "AVFOUNDATION_TESTS_ENGINE_CHILD"

    static var hasPulseAudio: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/pulseaudio") }
    }

    /// Runs `EngineChildChecks` with `server`, expecting an error with the four-character code `code`; returns the
    /// child's output, or throws when it fails.
    static func run(server: String, expecting code: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = server
        environment[environmentKey] = code
        let (status, output) = try TestProcess.run(
            ProcessInfo.processInfo.arguments[0], ["--testing-library", "swift-testing", "--filter", "EngineChildChecks"],
            environment: environment)
        guard status == 0 else { throw TestProcess.Failure(description: "the child exited with \(status):\n\(output)") }
        return output
    }

    /// Whether the child ran its one test, and it passed (a filter that matched nothing would pass too).
    static func ranOneTest(_ output: String) -> Bool {
        output.contains("Test run with 1 test in 1 suite passed")
    }
}

/// Runs only in the child process that `EngineChild.run` starts (the environment names the error code expected).
@Suite("EngineChildChecks", .enabled(if: ProcessInfo.processInfo.environment[EngineChild.environmentKey] != nil))
struct EngineChildChecks {
    @Test("the input node reports no device, and start() throws the expected error quickly")
    func startFails() throws {
        let code = try #require(ProcessInfo.processInfo.environment[EngineChild.environmentKey])
        let engine = AVAudioEngine()
        let input = engine.inputNode
        #expect(input.inputFormat(forBus: 0).sampleRate == 0 && input.inputFormat(forBus: 0).channelCount == 0)
        input.installTap(onBus: 0, bufferSize: 1_024, format: nil) { _, _ in Issue.record("a buffer came without a device") }
        let started = ContinuousClock.now
        let error = try #require(throws: NSError.self) { try engine.start() }
        #expect(ContinuousClock.now - started < .seconds(6))
        #expect(error.domain == "com.apple.coreaudio.avfaudio")
        #expect(error.code == AVAudioFileTests.code(code))
        #expect(error.localizedRecoverySuggestion?.isEmpty == false)
        if code == "stop" {
            #expect(error.localizedDescription == "No sound server is running.")
            #expect(error.localizedFailureReason?.contains("/nonexistent/pulse/native") == true)
        } else {
            #expect(error.localizedDescription == "There is no audio input.")
        }
        #expect(!engine.isRunning)
    }
}
