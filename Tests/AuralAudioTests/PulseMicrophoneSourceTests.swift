@testable import AuralAudio
import Foundation
import TestSupport
import Testing

extension PulseAudioTests {
    @Suite("PulseMicrophoneSource")
    struct PulseMicrophoneSourceTests {
        /// Buffers must follow each other exactly: each starts where the previous one ended.
        static func expectContiguous(_ buffers: [AudioBuffer], sourceLocation: SourceLocation = #_sourceLocation) {
            var expected = 0.0
            var breaks = 0
            for buffer in buffers {
                if abs(buffer.startTime - expected) > 1e-6 { breaks += 1 }
                expected = buffer.startTime + buffer.duration
            }
            #expect(breaks == 0, "\(breaks) buffers do not start where the previous one ended", sourceLocation: sourceLocation)
        }

        /// Plays `file` in real time into `feed` while `source` records, and checks the recording against the file.
        static func captureWhilePlaying(
            _ source: some AudioSource, feed: String, file: String = "beckett.wav"
        ) async throws -> (alignment: Correlation.Alignment, firstBuffer: TimeInterval, recording: Recording) {
            let reference = try ReferenceWAV.read(Fixtures.audio(file))
            #expect(reference.sampleRate == 16_000)
            let started = ContinuousClock.now
            let recording = Recording(try source.start())
            // A PulseAudio null sink that was idle renders 2 s at a time: wait for the first buffer, then play.
            try #require(await recording.waitForFrames(1, timeout: 5), "no buffer within 5 s")
            let firstBuffer = recording.firstArrival!.seconds(since: started)
            let player = try PulseHarness.play(Fixtures.audio(file), device: feed)
            let played = await PulseHarness.wait(for: player, timeout: Double(reference.samples.count) / 16_000 + 10)
            if !played { PulseHarness.kill(player) }
            try #require(played, "paplay did not finish")
            #expect(player.terminationStatus == 0)
            try await Task.sleep(for: .milliseconds(400))
            source.stop()
            try #require(await recording.waitForEnd(timeout: 3), "the stream did not finish after stop()")
            #expect(recording.error == nil)
            let alignment = try await Correlation.align(
                recording.samples, with: reference.samples, rate: 16_000, minimumOverlap: reference.samples.count / 2)
            return (alignment, firstBuffer, recording)
        }

        @Test("the default input captures a real recording played in real time: NCC ≥ 0.99, whole clip, no gaps")
        func defaultInputMatchesTheRecording() async throws {
            try PulseHarness.requirePrivateDaemon()
            let microphone = PulseMicrophoneSource()
            let (alignment, firstBuffer, recording) = try await Self.captureWhilePlaying(microphone, feed: "mic_feed")
            let reference = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            print("microphone: first buffer after \(Int(firstBuffer * 1000)) ms, lag \(alignment.lag) samples, NCC \(alignment.ncc), worst 1-s window \(alignment.worstWindow) over \(alignment.windows) windows")
            #expect(alignment.ncc >= 0.99)
            #expect(alignment.worstWindow >= 0.99)
            #expect(alignment.windows >= 5)
            // The whole clip is inside the recording: nothing cut off at either end, nothing missing in between.
            #expect(alignment.lag >= 0)
            #expect(alignment.overlap == reference.count)
            Self.expectContiguous(recording.buffers)
            #expect(microphone.overrunFrameCount == 0)
            #expect(recording.buffers.allSatisfy { $0.format == .whisper })
        }

        @Test("an input chosen by name captures it, at another rate and channel count when asked")
        func namedInputAndFormat() async throws {
            try PulseHarness.requirePrivateDaemon()
            let format = AudioFormat(sampleRate: 48_000, channelCount: 2)
            let microphone = PulseMicrophoneSource(deviceName: "virt_mic_clocked", format: format)
            let recording = Recording(try microphone.start())
            try #require(await recording.waitForFrames(4_800, timeout: 5))
            #expect(microphone.currentDeviceName == "virt_mic_clocked")
            microphone.stop()
            #expect(await recording.waitForEnd(timeout: 3))
            #expect(recording.error == nil)
            #expect(recording.buffers.allSatisfy { $0.format == format && $0.samples.count % 2 == 0 })
            Self.expectContiguous(recording.buffers)
        }

        @Test("a capture on the default input moves to a new default and keeps its stream")
        func followsTheDefaultInput() async throws {
            try PulseHarness.requirePrivateDaemon()
            let modules = try PulseHarness.virtualMicrophone(feed: "feed_two", microphone: "mic_two")
            let keeper = try PulseHarness.keeper(on: "feed_two.monitor")
            defer {
                PulseHarness.kill(keeper)
                _ = try? PulseHarness.pactl("set-default-source", "virt_mic_clocked")
                modules.forEach(PulseHarness.unload)
            }
            let microphone = PulseMicrophoneSource()
            let recording = Recording(try microphone.start())
            try #require(await recording.waitForFrames(1, timeout: 5))
            #expect(microphone.currentDeviceName == "virt_mic_clocked")

            try PulseHarness.pactl("set-default-source", "mic_two")
            let moved = await Poll.until(timeout: 2) { microphone.currentDeviceName == "mic_two" }
            #expect(moved, "the stream was not moved to the new default input")
            let framesBeforePlaying = recording.frameCount
            let player = try PulseHarness.play(Fixtures.audio("beckett.wav"), device: "feed_two")
            #expect(await PulseHarness.wait(for: player, timeout: 20))
            try await Task.sleep(for: .milliseconds(400))
            #expect(!recording.isFinished, "the stream ended when the default input changed")
            microphone.stop()
            #expect(await recording.waitForEnd(timeout: 3))
            #expect(recording.error == nil)

            let afterMove = Array(recording.samples[framesBeforePlaying...])
            let reference = try ReferenceWAV.read(Fixtures.audio("beckett.wav")).samples
            let alignment = try await Correlation.align(afterMove, with: reference, rate: 16_000, minimumOverlap: reference.count / 2)
            print("default follow: NCC \(alignment.ncc) over \(alignment.overlap) samples, worst window \(alignment.worstWindow)")
            #expect(alignment.ncc >= 0.99)
            #expect(alignment.overlap >= reference.count * 9 / 10)
            Self.expectContiguous(recording.buffers)
        }

        @Test("a consumer that falls behind loses audio that is counted, and the buffers' times show the gap")
        func overrunsAreCountedNotHidden() async throws {
            try PulseHarness.requirePrivateDaemon()
            let microphone = PulseMicrophoneSource()
            let stream = try microphone.start()
            // Nobody reads for 7.5 s: the stream holds about 5 s of 20-ms buffers, newer ones are dropped and counted.
            try await Task.sleep(for: .milliseconds(7_500))
            var buffers: [AudioBuffer] = []
            var iterator = stream.makeAsyncIterator()
            // Catch up, and read on until live audio comes again.
            while let buffer = try await iterator.next() {
                buffers.append(buffer)
                if buffer.startTime > 8 || buffers.count > 5_000 { break }
            }
            microphone.stop()
            while let buffer = try await iterator.next() { buffers.append(buffer) }
            let overrun = microphone.overrunFrameCount
            print("overrun: \(overrun) frames counted after 7.5 s without a reader; \(buffers.count) buffers kept")
            #expect(overrun > 16_000)
            // The buffers kept are in order, and the first one after the loss starts later by the frames lost.
            var gap = 0.0
            for (previous, next) in zip(buffers, buffers.dropFirst()) {
                #expect(next.startTime >= previous.startTime + previous.duration - 1e-6)
                gap += next.startTime - (previous.startTime + previous.duration)
            }
            #expect(abs(gap - Double(overrun) / 16_000) < 0.001)
            #expect(buffers.last!.startTime > 8)
        }

        @Test("an input that does not exist is a clear error")
        func unknownInput() throws {
            try PulseHarness.requirePrivateDaemon()
            let microphone = PulseMicrophoneSource(deviceName: "no_such_microphone")
            #expect(throws: AudioDeviceError.deviceNotFound(name: "no_such_microphone")) { try microphone.start() }
        }

        @Test("an input that goes away ends the stream with an error and keeps what was captured")
        func vanishingInput() async throws {
            try PulseHarness.requirePrivateDaemon()
            let modules = try PulseHarness.virtualMicrophone(feed: "feed_gone", microphone: "mic_gone")
            defer { modules.forEach(PulseHarness.unload) }
            let microphone = PulseMicrophoneSource(deviceName: "mic_gone")
            let recording = Recording(try microphone.start())
            try #require(await recording.waitForFrames(1, timeout: 5))
            PulseHarness.unload(modules[0])
            #expect(await recording.waitForEnd(timeout: 3), "the stream did not end when its device went away")
            #expect(recording.error as? AudioDeviceError == .deviceDisappeared(name: "mic_gone"))
            #expect(recording.frameCount > 0)
        }
    }
}
