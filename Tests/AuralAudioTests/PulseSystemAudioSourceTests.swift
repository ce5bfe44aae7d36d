@testable import AuralAudio
import Foundation
import TestSupport
import Testing

extension PulseAudioTests {
    @Suite("PulseSystemAudioSource")
    struct PulseSystemAudioSourceTests {
        typealias Helpers = PulseMicrophoneSourceTests

        @Test("everything the default output plays is captured: NCC ≥ 0.99, whole clip, no gaps")
        func defaultOutputMatchesTheRecording() async throws {
            try PulseHarness.requirePrivateDaemon()
            let speaker = PulseSystemAudioSource()
            let (alignment, firstBuffer, recording) = try await Helpers.captureWhilePlaying(speaker, feed: "virt_speaker")
            let reference = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            print("system audio: first buffer after \(Int(firstBuffer * 1000)) ms, lag \(alignment.lag) samples, NCC \(alignment.ncc), worst 1-s window \(alignment.worstWindow) over \(alignment.windows) windows")
            #expect(alignment.ncc >= 0.99)
            #expect(alignment.worstWindow >= 0.99)
            #expect(alignment.windows >= 5)
            #expect(alignment.lag >= 0)
            #expect(alignment.overlap == reference.count)
            Helpers.expectContiguous(recording.buffers)
            #expect(speaker.overrunFrameCount == 0)
        }

        @Test("an output chosen by name is captured, and one that does not exist is a clear error")
        func namedOutput() async throws {
            try PulseHarness.requirePrivateDaemon()
            let speaker = PulseSystemAudioSource(target: .output(name: "mic_feed"))
            let (alignment, _, _) = try await Helpers.captureWhilePlaying(speaker, feed: "mic_feed")
            #expect(alignment.ncc >= 0.99)
            let missing = PulseSystemAudioSource(target: .output(name: "no_such_output"))
            #expect(throws: AudioDeviceError.deviceNotFound(name: "no_such_output")) { try missing.start() }
            let gone = PulseSystemAudioSource(target: .application(id: 999_999))
            #expect(throws: AudioDeviceError.deviceNotFound(name: "application #999999")) { try gone.start() }
        }

        @Test("one application's output is captured alone while another application plays")
        func oneApplicationAlone() async throws {
            try PulseHarness.requirePrivateDaemon()
            let beckett = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            // The other application: 28 s of a different recording (24 kHz; the server resamples it).
            let other = try PulseHarness.play(Fixtures.audio("endgame_nagg_nell.wav"), device: "virt_speaker")
            defer { PulseHarness.kill(other) }
            try await Task.sleep(for: .milliseconds(300))
            let target = try PulseHarness.play(Fixtures.audio("beckett.wav"), device: "virt_speaker")
            defer { PulseHarness.kill(target) }
            var application: AudioApplication?
            let found = try await Poll.until(timeout: 3) {
                application = try AudioDevices.list().applications.first { $0.processID == Int(target.processIdentifier) }
                return application != nil
            }
            try #require(found, "paplay's playback stream did not show up in AudioDevices.list()")
            #expect(application?.outputName == "virt_speaker")
            #expect(application?.name.isEmpty == false)

            let source = PulseSystemAudioSource(target: .application(id: application!.id))
            let recording = Recording(try source.start())
            #expect(await PulseHarness.wait(for: target, timeout: 20))
            // When the application stops playing, the stream finishes normally.
            #expect(await recording.waitForEnd(timeout: 5), "the stream did not finish when the application stopped")
            #expect(recording.error == nil)
            #expect(other.isRunning, "the other application should still be playing")

            let captured = recording.samples
            let own = try await Correlation.align(captured, with: beckett, rate: 16_000, minimumOverlap: 16_000 * 5)
            // The other recording, resampled to 16 kHz by the library's converter, only to show it is not there.
            let otherFile = try ReferenceWAV.read(Fixtures.audio("endgame_nagg_nell.wav"))
            let converter = try AudioConverter(inputSampleRate: otherFile.sampleRate, inputChannelCount: 1)
            let otherReference = converter.convert(otherFile.samples) + converter.flush()
            let foreign = try await Correlation.align(captured, with: otherReference, rate: 16_000, minimumOverlap: 16_000 * 5)
            print("one application: NCC with its own recording \(own.ncc) over \(own.overlap) samples (worst window \(own.worstWindow)); with the other application's \(foreign.ncc)")
            #expect(own.ncc >= 0.99)
            #expect(own.worstWindow >= 0.99)
            #expect(own.overlap >= 16_000 * 7)
            #expect(foreign.ncc < 0.2)
        }

        @Test("excluding a process leaves its playback out and keeps every other application's, whole and in time")
        func excludesAProcess() async throws {
            try PulseHarness.requirePrivateDaemon()
            // The process to leave out plays a 24 kHz recording; another application then plays beckett.wav.
            let excluded = try PulseHarness.play(Fixtures.audio("endgame_nagg_nell.wav"), device: "virt_speaker")
            defer { PulseHarness.kill(excluded) }
            let source = PulseSystemAudioSource(
                target: .defaultOutput, format: .whisper, excludesCurrentProcessAudio: true, server: nil,
                additionalExcludedProcessIDs: [excluded.processIdentifier])
            #expect(source.excludedProcessIDs == [getpid(), excluded.processIdentifier])
            let started = ContinuousClock.now
            let recording = Recording(try source.start())
            try #require(await recording.waitForFrames(1, timeout: 5), "no buffer within 5 s")
            let firstBuffer = started.secondsAgo
            // Started after the capture: picked up from the server's sink-input events.
            let player = try PulseHarness.play(Fixtures.audio("beckett.wav"), device: "virt_speaker")
            defer { PulseHarness.kill(player) }
            #expect(await PulseHarness.wait(for: player, timeout: 20))
            try await Task.sleep(for: .milliseconds(400))
            #expect(excluded.isRunning, "the excluded application should still be playing")
            source.stop()
            try #require(await recording.waitForEnd(timeout: 3))
            #expect(recording.error == nil)

            let captured = recording.samples
            let beckett = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            let kept = try await Correlation.align(captured, with: beckett, rate: 16_000, minimumOverlap: beckett.count / 2)
            let otherFile = try ReferenceWAV.read(Fixtures.audio("endgame_nagg_nell.wav"))
            let converter = try AudioConverter(inputSampleRate: otherFile.sampleRate, inputChannelCount: 1)
            let left = try await Correlation.align(
                captured, with: converter.convert(otherFile.samples) + converter.flush(), rate: 16_000, minimumOverlap: 16_000 * 5)
            print("excluding a process: first buffer after \(Int(firstBuffer * 1000)) ms; NCC with the other application's recording \(kept.ncc) (worst window \(kept.worstWindow), overlap \(kept.overlap) of \(beckett.count)); with the excluded one's \(left.ncc)")
            #expect(kept.ncc >= 0.99)
            #expect(kept.worstWindow >= 0.99)
            // An application that starts during the capture is heard from when its stream is picked up, a few
            // milliseconds after it starts: allow 10 ms of its beginning to be missing.
            #expect(kept.overlap >= beckett.count - 160)
            #expect(left.ncc < 0.2)
            Helpers.expectContiguous(recording.buffers)
        }

        @Test("an output that goes away ends the capture with an error and keeps what was captured")
        func vanishingOutput() async throws {
            try PulseHarness.requirePrivateDaemon()
            let module = try PulseHarness.load("module-null-sink", "sink_name=speaker_gone", "rate=16000", "channels=1")
            defer { PulseHarness.unload(module) }
            let source = PulseSystemAudioSource(target: .output(name: "speaker_gone"))
            let recording = Recording(try source.start())
            try #require(await recording.waitForFrames(1, timeout: 5))
            PulseHarness.unload(module)
            #expect(await recording.waitForEnd(timeout: 3))
            #expect(recording.error as? AudioDeviceError == .deviceDisappeared(name: "speaker_gone"))
            #expect(recording.frameCount > 0)
        }

        @Test("a capture of the default output moves to a new default, and on when that one goes away")
        func followsTheDefaultOutput() async throws {
            try PulseHarness.requirePrivateDaemon()
            let module = try PulseHarness.load("module-null-sink", "sink_name=speaker_two", "rate=16000", "channels=1", "format=s16le")
            let keeper = try PulseHarness.keeper(on: "speaker_two.monitor")
            defer {
                PulseHarness.kill(keeper)
                _ = try? PulseHarness.pactl("set-default-sink", "virt_speaker")
                PulseHarness.unload(module)
            }
            let speaker = PulseSystemAudioSource()
            let recording = Recording(try speaker.start())
            // An idle null sink renders 2 s at a time, and longer while the engine's tests load both cores.
            try #require(await recording.waitForFrames(1, timeout: 15))
            #expect(speaker.currentDeviceName == "virt_speaker.monitor")

            try PulseHarness.pactl("set-default-sink", "speaker_two")
            let switched = ContinuousClock.now
            let moved = await Poll.until(timeout: 2) { speaker.currentDeviceName == "speaker_two.monitor" }
            print("default output follow: moved after \(Int(switched.secondsAgo * 1000)) ms")
            try #require(moved, "the capture did not move to the new default output (it records \(speaker.currentDeviceName ?? "nothing"); \(PulseHarness.defaults()))")
            let framesBeforePlaying = recording.frameCount
            let player = try PulseHarness.play(Fixtures.audio("beckett.wav"), device: "speaker_two")
            #expect(await PulseHarness.wait(for: player, timeout: 20))
            try await Task.sleep(for: .milliseconds(400))
            #expect(!recording.isFinished, "the stream ended when the default output changed")
            let afterMove = Array(recording.samples[framesBeforePlaying...])
            let reference = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            let alignment = try await Correlation.align(afterMove, with: reference, rate: 16_000, minimumOverlap: reference.count / 2)
            print("default output follow: NCC \(alignment.ncc) over \(alignment.overlap) samples, worst window \(alignment.worstWindow)")
            #expect(alignment.ncc >= 0.99)
            // One 20-ms fragment may fall outside the overlap: the capture runs on while this is measured.
            #expect(alignment.overlap >= reference.count * 99 / 100)

            // The new default goes away: the server names another default, and the capture moves there.
            PulseHarness.kill(keeper)
            PulseHarness.unload(module)
            let movedOn = await Poll.until(timeout: 3) {
                speaker.currentDeviceName != nil && speaker.currentDeviceName != "speaker_two.monitor"
            }
            #expect(movedOn, "the capture did not move on when its default output went away")
            let framesAfterRemoval = recording.frameCount
            #expect(await recording.waitForFrames(framesAfterRemoval + 1_600, timeout: 15), "no audio after the move")
            #expect(!recording.isFinished, "the stream ended: \(String(describing: recording.error))")
            speaker.stop()
            #expect(await recording.waitForEnd(timeout: 3))
            #expect(recording.error == nil)
            Helpers.expectContiguous(recording.buffers)
        }
    }
}
