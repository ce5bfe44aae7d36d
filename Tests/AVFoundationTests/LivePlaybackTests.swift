import AuralAudio
import AVFoundation
import Foundation
import Synchronization
import TestSupport
import Testing

extension PulseAudioTests {
    @Suite("AVAudioEngine playback")
    struct EnginePlaybackTests {
        /// `parecord` on the default output's monitor (`virt_speaker` of `scripts/with-pulse` and
        /// `scripts/with-pipewire`), 16 kHz mono: what the loudspeaker plays, heard by a program of the sound server's
        /// own, not by this library. Its 20 ms fragments keep the null sink's latency low: at parecord's default (2 s
        /// blocks) the null sink had rendered ahead when the player's stream appeared, and the first 1.3 s played
        /// were lost on PulseAudio (a hardware sink rewinds for a new stream).
        static func recordTheSpeaker(to url: URL) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/parecord")
            process.arguments = ["--device=virt_speaker.monitor", "--rate=16000", "--channels=1", "--format=s16le",
                                 "--file-format=wav", "--latency-msec=20", url.path]
            process.standardError = FileHandle.nullDevice
            try process.runWithDefaultSignals()
            return process
        }

        /// Stops this whole process for `seconds`, `after` seconds from now, as a busy machine or a virtual machine's
        /// stolen time does: a shell sends SIGSTOP, then SIGCONT.
        static func stallThisProcess(for seconds: Double, after delay: Double) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "sleep \(delay); kill -STOP \(getpid()); sleep \(seconds); kill -CONT \(getpid())"]
            try process.runWithDefaultSignals()
            return process
        }

        @Test("a player node connected through the main mixer plays a file to the default output, whole even when the process stalls, and its stream closes at stop",
              .requiresFixtures(audio: ["beckett.wav"]))
        func playerIsHeard() async throws {
            let reference = try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples()
            let file = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)

            let recordingURL = TestAudio.temporaryURL()
            defer { try? FileManager.default.removeItem(at: recordingURL) }
            let recorder = try Self.recordTheSpeaker(to: recordingURL)
            defer { if recorder.isRunning { recorder.terminate() } }
            // A null sink that was idle renders 2 s at a time: play once the recorder has written its first block.
            let recording = await Poll.until(timeout: 5, every: .milliseconds(20)) {
                let size = try? FileManager.default.attributesOfItem(atPath: recordingURL.path)[.size] as? Int
                return (size ?? 0) > 1_000
            }
            try #require(recording, "parecord wrote nothing within 5 s")

            let played = Atomic<Bool>(false)
            player.scheduleFile(file, at: nil) { played.store(true, ordering: .releasing) }
            try engine.start()
            player.play()
            // The stream opens at the player's first render, on the engine's render thread.
            let opened = try await Poll.until(timeout: 5, every: .milliseconds(50)) {
                try AudioDevices.list().applications.contains { $0.processID == Int(getpid()) }
            }
            #expect(opened, "no playback stream of this process while the player plays")
            // 0.15 s without running, mid-file: the 0.5 s queued ahead of the speaker must cover it. With 0.1 s of
            // buffering this left 5 ms of silence in the file and failed the NCC below (and on PipeWire so did 0.5 s
            // asked of the server but not queued).
            let staller = try Self.stallThisProcess(for: 0.15, after: 2)
            let finished = await Poll.until(timeout: Double(file.length) / file.processingFormat.sampleRate + 10) {
                played.load(ordering: .acquiring)
            }
            try #require(finished, "the completion handler was not called")
            #expect(staller.exitStatus(within: 1) == 0, "the stall was not made")
            // The last rendered frames are still in the stream's buffer.
            try await Task.sleep(for: .seconds(PulsePlayback.targetLatency + 0.5))
            engine.stop()
            let left = try AudioDevices.list().applications.filter { $0.processID == Int(getpid()) }
            #expect(left.isEmpty, "the playback stream outlived engine.stop()")
            try await Task.sleep(for: .milliseconds(400))
            recorder.interrupt()
            let ended = await Poll.until(timeout: 5) { !recorder.isRunning }
            try #require(ended, "parecord did not end")

            let heard = try WAVFile(url: recordingURL).interleavedSamples()
            let (lag, ncc) = try await offPool { Alignment.align(heard, with: reference, rate: 16_000) }
            print("AVAudioPlayerNode playback: \(heard.count) samples heard (energy \(SignalMeasures.energy(heard)), the file's \(SignalMeasures.energy(reference))), the file at \(lag), NCC \(ncc)")
            #expect(ncc >= 0.99)
            #expect(lag >= 0 && lag + reference.count <= heard.count, "the file is not all in what the speaker played")
        }

        @Test("a player connected to no output plays to its tap only: the speaker stays silent",
              .requiresFixtures(audio: ["beckett.wav"]))
        func unconnectedPlayerIsSilent() async throws {
            let file = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            let recorder = TapRecorder()
            player.installTap(onBus: 0, bufferSize: 1_600, format: nil, block: recorder.block)
            player.scheduleFile(file, at: nil)
            try engine.start()
            defer { engine.stop() }
            player.play()
            try #require(await Poll.until(timeout: 5) { recorder.frameCount >= 16_000 }, "the tap got less than 1 s")
            let streams = try AudioDevices.list().applications.filter { $0.processID == Int(getpid()) }
            #expect(streams.isEmpty, "a player that reaches no output opened a playback stream")
            #expect(SignalMeasures.energy(recorder.samples) > 0, "the tap got only silence")
        }
    }
}
