@testable import AuralAudio
import Foundation
import TestSupport
import Testing

extension PulseAudioTests {
    /// Captures against a private daemon of the test's own that it freezes (SIGSTOP), thaws, kills and restarts.
    @Suite("Sound server faults")
    struct ServerFaultTests {
        enum Kind: String, CaseIterable, CustomTestStringConvertible {
            case microphone, systemAudio
            var testDescription: String { rawValue }
        }

        static func source(_ kind: Kind, server: String?, options: LiveCaptureOptions) -> any AudioSource {
            switch kind {
            case .microphone:
                PulseMicrophoneSource(deviceName: nil, format: .whisper, options: options, server: server)
            case .systemAudio:
                PulseSystemAudioSource(
                    target: .defaultOutput, format: .whisper, excludesCurrentProcessAudio: false, options: options, server: server)
            }
        }

        /// The stall time of the freezing tests.
        static let stallTimeout = 1.5

        /// Starts `source`, freezes the process `pid` (SIGSTOP) once audio flows, and expects the capture to end with
        /// `serverNotResponding` after the stall time (within 1.5 s more); then thaws it and expects a new capture to
        /// deliver and stop cleanly, so nothing was left waiting on the frozen server.
        static func expectFreezeEndsCapture(_ source: any AudioSource, freezing pid: pid_t, what: String) async throws {
            defer { kill(pid, SIGCONT) }
            let recording = Recording(try source.start())
            // An idle PulseAudio null sink renders 2 s at a time: its first buffer can take that long (the server
            // answers pings meanwhile, so it is not a stall), and longer while the engine's tests load both cores.
            try #require(await recording.waitForFrames(1, timeout: 15))
            kill(pid, SIGSTOP)
            let frozen = ContinuousClock.now
            let ended = await recording.waitForEnd(timeout: stallTimeout + 1.5)
            let waited = frozen.secondsAgo
            print("\(what) ended the capture after \(Int(waited * 1000)) ms (stall time \(stallTimeout) s)")
            if !ended { source.stop() }
            #expect(ended, "the capture did not end within the stall time + 1.5 s")
            #expect(recording.error as? AudioDeviceError == .serverNotResponding(seconds: stallTimeout))
            // Pings go every 0.1 s and audio every 20 ms (64 ms on PipeWire), so the last sign of life came at most
            // 0.1 s before the freeze.
            #expect(waited >= stallTimeout - 0.15)
            #expect(recording.frameCount > 0)

            kill(pid, SIGCONT)
            let again = Recording(try source.start())
            #expect(await again.waitForFrames(1_600, timeout: 15), "no audio after SIGCONT")
            source.stop()
            #expect(await again.waitForEnd(timeout: 3), "the stream did not finish after stop()")
            #expect(again.error == nil)
        }

        @Test("a frozen server (SIGSTOP) ends the capture with serverNotResponding within the stall time; SIGCONT leaves nothing hung", arguments: Kind.allCases)
        func frozenServer(_ kind: Kind) async throws {
            try PulseHarness.requirePrivateDaemon()
            try await PulseHarness.withExtraDaemon { server, pid in
                let source = Self.source(kind, server: server, options: LiveCaptureOptions(stallTimeout: Self.stallTimeout))
                try await Self.expectFreezeEndsCapture(source, freezing: pid, what: "\(kind): a frozen server")
            }
        }

        @Test(
            "PipeWire: a frozen graph (SIGSTOP on pipewire; pipewire-pulse still runs) ends the capture with serverNotResponding",
            .enabled(if: PulseHarness.pipeWireGraphProcess != nil, "needs scripts/with-pipewire"), arguments: Kind.allCases)
        func frozenGraph(_ kind: Kind) async throws {
            let pid = try #require(PulseHarness.pipeWireGraphProcess)
            // The shared server: this suite's tests run one at a time, so nothing else uses the graph meanwhile.
            let source = Self.source(kind, server: nil, options: LiveCaptureOptions(stallTimeout: Self.stallTimeout))
            try await Self.expectFreezeEndsCapture(source, freezing: pid, what: "\(kind): a frozen PipeWire graph")
        }

        @Test("with reconnects on, kill -9 and a restart of the server resume the capture, and startTime shows the gap", arguments: Kind.allCases)
        func reconnectsAfterRestart(_ kind: Kind) async throws {
            try PulseHarness.requirePrivateDaemon()
            var daemon = try await PulseHarness.startExtraDaemon()
            defer {
                PulseHarness.kill(daemon.process)
                try? FileManager.default.removeItem(at: daemon.directory)
            }
            let source = Self.source(kind, server: daemon.server, options: LiveCaptureOptions(reconnects: true, reconnectTimeout: 20))
            let recording = Recording(try source.start())
            try #require(await recording.waitForFrames(1, timeout: 15))
            // Half a second of steady capture, then the crash.
            try #require(await recording.waitForFrames(recording.frameCount + 8_000, timeout: 10))
            PulseHarness.kill(daemon.process)
            let killed = ContinuousClock.now
            let framesBefore = recording.frameCount
            try await Task.sleep(for: .seconds(1))
            daemon = try await PulseHarness.startExtraDaemon(in: daemon.directory)
            let down = killed.secondsAgo
            let resumed = await recording.waitForFrames(framesBefore + 16_000, timeout: 20)
            #expect(resumed, "capture did not resume after the restart")
            #expect(!recording.isFinished, "the stream ended: \(String(describing: recording.error))")
            source.stop()
            #expect(await recording.waitForEnd(timeout: 3))
            #expect(recording.error == nil)

            // Exactly one break in the buffers' times, as long as the server was away (within tolerance).
            let buffers = recording.buffers
            var gaps: [Double] = []
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                let gap = next.startTime - (previous.startTime + previous.duration)
                #expect(gap > -1e-6, "buffers overlap")
                if gap > 1e-6 { gaps.append(gap) }
            }
            print("\(kind): server away \(Int(down * 1000)) ms; gaps in startTime: \(gaps.map { Int($0 * 1000) }) ms")
            try #require(gaps.count == 1, "expected one gap, found \(gaps.count)")
            // The gap runs from the last buffer before the kill (at most a fragment earlier) to the reconnect
            // (at most one 0.25 s retry after the restart).
            #expect(gaps[0] >= down - 0.1)
            #expect(gaps[0] <= down + 0.6)
        }
    }
}

extension PulseAudioTests.ServerFaultTests {
    @Test("the async variants wait for a frozen server off the cooperative pool: eight at once take one timeout, not four")
    func asyncVariantsDoNotHoldThePool() async throws {
        try PulseHarness.requirePrivateDaemon()
        try await PulseHarness.withExtraDaemon { server, pid in
            kill(pid, SIGSTOP)
            let started = ContinuousClock.now
            // Each call waits 5 s for the frozen server. Run on Swift's two cooperative threads, eight would take
            // four rounds (20 s); on threads of their own they all wait at once.
            let errors = await withTaskGroup(of: AudioDeviceError?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            switch index % 4 {
                            case 0:
                                _ = try await AudioDevices.current(server: server)
                            case 1:
                                _ = try await PulseMicrophoneSource(deviceName: nil, format: .whisper, server: server).startCapture()
                            case 2:
                                _ = try await PulseSystemAudioSource(
                                    target: .defaultOutput, format: .whisper, excludesCurrentProcessAudio: false, server: server
                                ).startCapture()
                            default:
                                _ = try await DeviceMonitor(server: server).startMonitoring()
                            }
                            return nil
                        } catch {
                            return error as? AudioDeviceError
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let waited = started.secondsAgo
            print("eight async calls on a frozen server returned after \(Int(waited * 1000)) ms")
            // Most time out; once the frozen daemon's listen queue is full, the rest are refused at once.
            let timedOut = errors.filter { $0 == .noSoundServer(server: server, reason: "it did not answer within 5 s") }.count
            let refused = errors.filter { $0 == .noSoundServer(server: server, reason: "Connection refused") }.count
            #expect(errors.count == 8 && timedOut + refused == 8 && timedOut >= 1, "\(errors)")
            #expect(waited >= 4.9)
            #expect(waited < 10, "the calls waited in turn, as on the cooperative pool")
        }
    }
}
