@testable import AuralAudio
import Foundation
import Synchronization
import TestSupport
import Testing

/// Collects what a `DeviceMonitor` publishes, with arrival times (at high priority, as `Recording` does).
final class InputEvents: Sendable {
    private let events = Mutex<[(info: AudioInputInfo, arrived: ContinuousClock.Instant)]>([])
    private let ending = Mutex<(finished: Bool, error: Error?)>((false, nil))

    init(_ stream: AsyncThrowingStream<AudioInputInfo, Error>) {
        Task(priority: .high) { [self] in
            do {
                for try await info in stream {
                    let now = ContinuousClock.now
                    events.withLock { $0.append((info, now)) }
                }
                ending.withLock { $0.finished = true }
            } catch {
                ending.withLock { $0 = (true, error) }
            }
        }
    }

    var count: Int { events.withLock { $0.count } }
    var all: [(info: AudioInputInfo, arrived: ContinuousClock.Instant)] { events.withLock { $0 } }
    var isFinished: Bool { ending.withLock { $0.finished } }
    var error: Error? { ending.withLock { $0.error } }

    /// Waits for the first event after index `after` that satisfies `match`, at most `timeout` seconds.
    func next(after: Int, timeout: TimeInterval, where match: (AudioInputInfo) -> Bool = { _ in true }) async
        -> (info: AudioInputInfo, arrived: ContinuousClock.Instant)?
    {
        var found: (info: AudioInputInfo, arrived: ContinuousClock.Instant)?
        _ = await Poll.until(timeout: timeout) {
            found = all.dropFirst(after).first { match($0.info) }
            return found != nil
        }
        return found
    }
}

extension PulseAudioTests {
    @Suite("DeviceMonitor")
    struct DeviceMonitorTests {
        @Test("publishes the current default input first, with its details")
        func currentInputFirst() async throws {
            try PulseHarness.requirePrivateDaemon()
            let monitor = DeviceMonitor()
            let events = InputEvents(try monitor.start())
            let first = try #require(await events.next(after: 0, timeout: 2))
            #expect(first.info.uid == "virt_mic_clocked")
            #expect(first.info.portName == "VirtualMicrophone")
            #expect(first.info.channelCount == 1)
            #expect(first.info.nominalSampleRate == 16_000)
            monitor.stop()
            #expect(await Poll.until(timeout: 2) { events.isFinished })
            #expect(events.error == nil)
        }

        /// Latency counts from when `pactl` got the server's answer (the change is done; an event may come first, and
        /// then it is 0): starting `pactl` itself took up to 100 ms under CI's load.
        @Test("a default-input change and a device coming and going are published within 100 ms")
        func changesArriveQuickly() async throws {
            try PulseHarness.requirePrivateDaemon()
            let monitor = DeviceMonitor()
            let events = InputEvents(try monitor.start())
            defer { monitor.stop() }
            try #require(await events.next(after: 0, timeout: 2) != nil)

            // A device comes.
            var seen = events.count
            var sent = ContinuousClock.now
            let module = try PulseHarness.load(
                "module-null-sink", "sink_name=hotplug", "rate=48000", "channels=2", "sink_properties=device.description=Hotplug")
            var done = ContinuousClock.now
            // Seconds from pactl's answer (0 when the event came first), and from before starting pactl.
            func latency(_ arrived: ContinuousClock.Instant) -> (afterAnswer: Double, withPactl: Double) {
                (max(0, arrived.seconds(since: done)), arrived.seconds(since: sent))
            }
            defer {
                _ = try? PulseHarness.pactl("set-default-source", "virt_mic_clocked")
                PulseHarness.unload(module)
            }
            let added = try #require(await events.next(after: seen, timeout: 2), "no event when a device was added")
            let (addedLatency, addedWithPactl) = latency(added.arrived)

            // The default input changes to it.
            try await Task.sleep(for: .milliseconds(100))
            seen = events.count
            sent = ContinuousClock.now
            try PulseHarness.pactl("set-default-source", "hotplug.monitor")
            done = ContinuousClock.now
            let changed = try #require(
                await events.next(after: seen, timeout: 2) { $0.uid == "hotplug.monitor" }, "no event for the new default input (\(PulseHarness.defaults()))")
            let (changedLatency, changedWithPactl) = latency(changed.arrived)
            #expect(changed.info.channelCount == 2)
            #expect(changed.info.nominalSampleRate == 48_000)
            #expect(changed.info.portName == "Monitor of Hotplug")

            // The device goes; the server falls back to another default input.
            try await Task.sleep(for: .milliseconds(100))
            seen = events.count
            sent = ContinuousClock.now
            PulseHarness.unload(module)
            done = ContinuousClock.now
            let removed = try #require(
                await events.next(after: seen, timeout: 2) { $0.uid != "hotplug.monitor" }, "no event when the device went away")
            let (removedLatency, removedWithPactl) = latency(removed.arrived)

            print("device monitor latency after pactl's answer (with starting pactl): added \(Int(addedLatency * 1000)) (\(Int(addedWithPactl * 1000))) ms, default changed \(Int(changedLatency * 1000)) (\(Int(changedWithPactl * 1000))) ms, removed \(Int(removedLatency * 1000)) (\(Int(removedWithPactl * 1000))) ms")
            #expect(addedLatency < 0.1)
            #expect(changedLatency < 0.1)
            #expect(removedLatency < 0.1)
            #expect(!events.isFinished)
        }
    }

    @Suite("Sound server errors")
    struct SoundServerErrorTests {
        static let nowhere = "unix:/nonexistent/auralkit/pulse/native"

        @Test("no sound server: every entry point throws a clear error with a hint, at once")
        func noServer() async throws {
            let started = ContinuousClock.now
            let expected = AudioDeviceError.noSoundServer(server: Self.nowhere, reason: "Connection refused")
            #expect(throws: expected) { try PulseMicrophoneSource(deviceName: nil, format: .whisper, server: Self.nowhere).start() }
            #expect(throws: expected) {
                try PulseSystemAudioSource(target: .defaultOutput, format: .whisper, excludesCurrentProcessAudio: false, server: Self.nowhere).start()
            }
            #expect(throws: expected) { try AudioDevices.list(server: Self.nowhere) }
            #expect(throws: expected) { try DeviceMonitor(server: Self.nowhere).start() }
            #expect(started.secondsAgo < 2)
            #expect(expected.recoverySuggestion?.contains("PULSE_SERVER") == true)
            #expect(expected.failureReason?.contains(Self.nowhere) == true)
        }

        @Test("a sound server that does not answer gives noSoundServer after the timeout, not a hang")
        func serverDoesNotAnswer() async throws {
            try PulseHarness.requirePrivateDaemon()
            let daemon = try await PulseHarness.startExtraDaemon()
            defer {
                kill(daemon.process.processIdentifier, SIGCONT)
                PulseHarness.kill(daemon.process)
                try? FileManager.default.removeItem(at: daemon.directory)
            }
            kill(daemon.process.processIdentifier, SIGSTOP)
            // The blocking variant, on a thread of its own: it holds its caller for the whole timeout. The time is
            // taken around the call itself, not the wait for the heavy-work lane, which other suites may hold.
            let server = daemon.server
            let (waited, failure) = try await offPool { () -> (Double, (any Error)?) in
                let started = ContinuousClock.now
                do {
                    _ = try AudioDevices.list(server: server)
                    return (started.secondsAgo, nil)
                } catch {
                    return (started.secondsAgo, error)
                }
            }
            #expect(failure as? AudioDeviceError == .noSoundServer(server: daemon.server, reason: "it did not answer within 5 s"))
            print("a frozen server's list call returned after \(Int(waited * 1000)) ms")
            // At least the 5 s timeout; under 10 s, which a hang or a second wait of the timeout would reach. The
            // slack above 5 s is for a starting thread and closing the connection while other suites load both cores.
            #expect(waited >= 4.9 && waited < 10)
        }

        @Test("a sound server that stops ends captures and the device monitor with connectionLost, keeping buffers")
        func serverStops() async throws {
            try PulseHarness.requirePrivateDaemon()
            let daemon = try await PulseHarness.startExtraDaemon()
            defer {
                PulseHarness.kill(daemon.process)
                try? FileManager.default.removeItem(at: daemon.directory)
            }
            let source = PulseSystemAudioSource(target: .defaultOutput, format: .whisper, excludesCurrentProcessAudio: false, server: daemon.server)
            let recording = Recording(try source.start())
            let monitor = DeviceMonitor(server: daemon.server)
            let events = InputEvents(try monitor.start())
            // An idle null sink renders 2 s at a time, so its monitor's first buffer can take that long, and longer
            // while the engine's tests load both cores.
            try #require(await recording.waitForFrames(1, timeout: 15))
            try #require(await events.next(after: 0, timeout: 5) != nil)
            PulseHarness.kill(daemon.process)
            #expect(await recording.waitForEnd(timeout: 3), "the capture hung after the server stopped")
            #expect(await Poll.until(timeout: 3) { events.isFinished }, "the monitor hung after the server stopped")
            guard case .connectionLost? = recording.error as? AudioDeviceError else {
                Issue.record("expected connectionLost, got \(String(describing: recording.error))")
                return
            }
            guard case .connectionLost? = events.error as? AudioDeviceError else {
                Issue.record("expected connectionLost from the monitor, got \(String(describing: events.error))")
                return
            }
            #expect(recording.frameCount > 0)
        }
    }

    @Suite("AudioDevices")
    struct AudioDevicesTests {
        @Test("lists the virtual devices with the defaults marked, monitors apart, and playing applications")
        func listsDevices() async throws {
            try PulseHarness.requirePrivateDaemon()
            let player = try PulseHarness.play(Fixtures.audio("beckett.wav"), device: "mic_feed")
            defer { PulseHarness.kill(player) }
            var list = try AudioDevices.list()
            _ = try await Poll.until(timeout: 3) {
                list = try AudioDevices.list()
                return list.applications.contains { $0.processID == Int(player.processIdentifier) }
            }
            let speaker = try #require(list.outputs.first { $0.name == "virt_speaker" })
            #expect(speaker.isDefault)
            #expect(speaker.description == "VirtualSpeaker")
            #expect(speaker.channelCount == 1 && speaker.sampleRate == 16_000)
            #expect(list.outputs.filter(\.isDefault).count == 1)
            let microphone = try #require(list.inputs.first { $0.name == "virt_mic_clocked" })
            #expect(microphone.isDefault && microphone.kind == .input)
            #expect(list.defaultInput?.name == "virt_mic_clocked")
            #expect(list.defaultOutput?.name == "virt_speaker")
            #expect(!list.inputs.contains { $0.name.hasSuffix(".monitor") })
            let monitor = try #require(list.monitors.first { $0.name == "virt_speaker.monitor" })
            #expect(monitor.monitoredOutput == "virt_speaker" && monitor.kind == .monitor)
            let application = try #require(list.applications.first { $0.processID == Int(player.processIdentifier) })
            #expect(application.outputName == "mic_feed")
        }
    }
}
