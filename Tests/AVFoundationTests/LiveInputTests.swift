import AuralAudio
import AVFoundation
import Foundation
import TestSupport
import Testing

/// Every test here talks to the private PulseAudio daemon of `scripts/with-pulse` and plays into its virtual
/// microphone, so they run one at a time (they change its default input), take the microphone from the other test
/// targets' live suites (`.exclusiveVirtualMicrophone`), and `--filter PulseAudioTests` runs them with the audio layer's.
@Suite("PulseAudio", .serialized, .requiresVirtualMicrophone, .exclusiveVirtualMicrophone)
struct PulseAudioTests {}

extension PulseAudioTests {
    @Suite("AVAudioEngine input")
    struct EngineInputTests {
        @Test("the input node's tap hears a recording played into the microphone, whole, in buffers of the size asked",
              .requiresFixtures(audio: ["beckett.wav"]))
        func tapHearsTheMicrophone() async throws {
            let reference = try WAVFile(url: Fixtures.audio("beckett.wav")).interleavedSamples()
            let device = try #require(try await AudioDevices.current.defaultInput)
            let engine = AVAudioEngine()
            let input = engine.inputNode
            let native = try #require(AVAudioFormat(
                standardFormatWithSampleRate: Double(device.sampleRate), channels: AVAudioChannelCount(device.channelCount)))
            #expect(input.inputFormat(forBus: 0) == native)
            #expect(input.outputFormat(forBus: 0) == native)
            let recorder = TapRecorder()
            input.installTap(onBus: 0, bufferSize: 4_800, format: input.outputFormat(forBus: 0), block: recorder.block)
            try engine.start()
            defer { engine.stop() }
            #expect(engine.isRunning)
            try #require(await Poll.until(timeout: 5) { recorder.frameCount > 0 }, "no buffer within 5 s")

            let player = try VirtualMicrophone.play(Fixtures.audio("beckett.wav"))
            let played = await Poll.until(timeout: 30, every: .milliseconds(20)) { !player.isRunning }
            if !played { player.terminate() }
            try #require(played, "paplay did not finish")
            try await Task.sleep(for: .milliseconds(600))
            engine.stop()
            #expect(!engine.isRunning)

            let deliveries = recorder.deliveries
            #expect(deliveries.allSatisfy { $0.frames == 4_800 && $0.format == native })
            #expect(recorder.isContiguous)
            #expect(zip(deliveries, deliveries.dropFirst()).allSatisfy { $0.hostTime < $1.hostTime })
            #expect(!recorder.sawMainThread)
            let (lag, correlation) = try await offPool { Alignment.align(recorder.samples, with: reference, rate: 16_000) }
            print("AVAudioEngine tap: \(deliveries.count) buffers, recording at \(lag) samples, NCC \(correlation)")
            #expect(correlation >= 0.99)
            #expect(lag >= 0 && lag + reference.count <= recorder.frameCount, "the recording is not all in the capture")
        }

        @Test("a tap may ask for another rate, channel count and sample type: the sound server converts")
        func tapInAnotherFormat() async throws {
            let engine = AVAudioEngine()
            let input = engine.inputNode
            let wanted = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true))
            let recorder = TapRecorder()
            input.installTap(onBus: 0, bufferSize: 1_024, format: wanted, block: recorder.block)
            #expect(input.outputFormat(forBus: 0) == wanted)
            try engine.start()
            defer { engine.stop() }
            #expect(await Poll.until(timeout: 5) { recorder.deliveries.count >= 10 })
            engine.stop()
            #expect(recorder.deliveries.allSatisfy { $0.frames == 1_024 && $0.format == wanted })
            #expect(recorder.isContiguous)
        }

        @Test("a new default input posts AVAudioEngineConfigurationChange; recording goes on; the formats follow")
        func defaultInputChange() async throws {
            let modules = try Pactl.virtualInput(sink: "avf_feed", source: "avf_mic", rate: 48_000, channels: 2)
            defer {
                _ = try? Pactl.run("set-default-source", "virt_mic_clocked")
                modules.forEach { _ = try? Pactl.run("unload-module", $0) }
            }
            let engine = AVAudioEngine()
            let recorder = TapRecorder()
            engine.inputNode.installTap(onBus: 0, bufferSize: 1_600, format: nil, block: recorder.block)
            try engine.start()
            defer { engine.stop() }
            try #require(await Poll.until(timeout: 5) { recorder.frameCount > 0 })
            let changed = Flag()
            let observer = NotificationCenter.default.addObserver(
                forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { _ in changed.set() }
            defer { NotificationCenter.default.removeObserver(observer) }

            try Pactl.run("set-default-source", "avf_mic")
            #expect(await Poll.until(timeout: 5) { changed.isSet }, "no AVAudioEngineConfigurationChange")
            #expect(engine.isRunning)
            // The new input's own format, as the server states it: PulseAudio keeps the 48 kHz the module was loaded
            // with, PipeWire's pulse layer states the graph's rate.
            let spec = try Pactl.sampleSpec(of: "avf_mic")
            #expect(engine.inputNode.inputFormat(forBus: 0) == AVAudioFormat(standardFormatWithSampleRate: spec.rate, channels: spec.channels))
            let before = recorder.frameCount
            #expect(await Poll.until(timeout: 5) { recorder.frameCount >= before + 16_000 }, "recording stopped")  // an idle null sink renders 2 s at a time
        }
    }
}

/// Where a recording lies in a capture, and how alike they are there.
enum Alignment {
    /// The lag at which `reference` best matches `captured` (`captured[i]` lines up with `reference[i - lag]`), found on
    /// 10-ms envelopes and refined sample by sample, with the normalized correlation over the whole overlap there.
    static func align(_ captured: [Float], with reference: [Float], rate: Int) -> (lag: Int, ncc: Double) {
        let block = rate / 100
        func envelope(_ signal: [Float]) -> [Float] {
            stride(from: 0, to: signal.count - block + 1, by: block).map { start in
                signal[start..<(start + block)].reduce(0) { $0 + abs($1) } / Float(block)
            }
        }
        let (capturedEnvelope, referenceEnvelope) = (envelope(captured), envelope(reference))
        var coarse = (lag: 0, score: -Double.infinity)
        for lag in 0...max(0, capturedEnvelope.count - referenceEnvelope.count) {
            let score = SignalMeasures.correlation(Array(capturedEnvelope[lag...]), referenceEnvelope)
            if score > coarse.score { coarse = (lag, score) }
        }
        var best = (lag: coarse.lag * block, ncc: -Double.infinity)
        for lag in max(0, coarse.lag * block - 2 * block)...(coarse.lag * block + 2 * block) where lag < captured.count {
            let ncc = SignalMeasures.correlation(Array(captured[lag...]), reference)
            if ncc > best.ncc { best = (lag, ncc) }
        }
        return best
    }
}

/// `pactl` against the private daemon.
enum Pactl {
    /// Runs `pactl` with `arguments` and returns its output; throws when it fails.
    @discardableResult
    static func run(_ arguments: String...) throws -> String {
        let (status, output) = try TestProcess.run("/usr/bin/env", ["pactl"] + arguments, grace: 5)
        guard status == 0 else {
            throw TestProcess.Failure(description: "pactl \(arguments.joined(separator: " ")) exited with \(status): \(output)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A null sink and a virtual input made from its monitor, at `rate` and `channels`; returns the modules to unload.
    /// The rate and channel count the server states for `source` (`pactl list short sources`: "float32le 2ch 48000Hz").
    static func sampleSpec(of source: String) throws -> (rate: Double, channels: AVAudioChannelCount) {
        let line = try #require(try run("list", "short", "sources").split(separator: "\n").first { $0.split(separator: "\t").dropFirst().first == Substring(source) })
        let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
        let channels = try #require(fields.first { $0.hasSuffix("ch") }.flatMap { AVAudioChannelCount($0.dropLast(2)) })
        let rate = try #require(fields.first { $0.hasSuffix("Hz") }.flatMap { Double($0.dropLast(2)) })
        return (rate, channels)
    }

    static func virtualInput(sink: String, source: String, rate: Int, channels: Int) throws -> [String] {
        let sinkModule = try run("load-module", "module-null-sink", "sink_name=\(sink)", "rate=\(rate)", "channels=\(channels)")
        let sourceModule = try run(
            "load-module", "module-remap-source", "master=\(sink).monitor", "source_name=\(source)",
            "source_properties=device.description=\(source)")
        return [sourceModule, sinkModule]
    }
}
