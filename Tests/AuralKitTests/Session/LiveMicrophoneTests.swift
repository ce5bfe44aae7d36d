@testable import AuralKit
@testable import Speech
import AuralWhisper
import Foundation
import TestSupport
import Testing

/// Every test that plays into the private daemon's virtual microphone lives in a suite nested in this one, so they
/// run one at a time (two recordings played at once would mix). `make test` runs this suite on its own, after the
/// others, because the audio layer's tests use the same daemon's devices. `aural listen`'s live suite, in another
/// target, takes the same `.exclusiveVirtualMicrophone` trait, so the two never play at once.
@Suite("Live microphone", .serialized, .requiresVirtualMicrophone, .exclusiveVirtualMicrophone)
struct LiveMicrophone {}

extension LiveMicrophone {
/// The real path: a recording played in real time into the virtual microphone, transcribed by a session from the
/// default input.
@MainActor
@Suite("Live sessions", .serialized, .requiresFixtures(audio: ["two_cities.wav", "beckett.wav"], models: ["tiny.en"]))
struct LiveSessionTests {
    @Test("the default input's speech is transcribed live: final WER near the file's, no word twice")
    func liveWER() async throws {
        let recording = Fixtures.audio("two_cities.wav")
        let session = SpeechSession(locale: Locale(identifier: "en-US"), model: "tiny.en")
        let stream = session.startTranscribing()
        let collector = Task { await SpeechSessionTests.collect(stream) }
        let player = try VirtualMicrophone.play(recording, delay: 1)
        while player.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1.5))
        await session.stopTranscribing()
        let (finals, volatiles, error) = await collector.value
        #expect(error == nil)
        #expect(!volatiles.isEmpty)
        let live = finals.map { String($0.text.characters) }.joined()
        let file = try await offPool { try SpeechSessionTests.fileText("two_cities.wav") }
        let reference = ReferenceTranscripts.twoCities
        let liveWER = WordErrorRate.percent(reference: reference, hypothesis: live)
        let fileWER = WordErrorRate.percent(reference: reference, hypothesis: file)
        // The issue's bound: 1 point, one word of 119. Real-time misses came from the audio the virtual microphone
        // delivers (PulseAudio resamples the recording to the daemon's 16 kHz, 16-bit), and replays of that captured
        // audio reproduce them (scripts/live-bench --captured). Since the cut that keeps 6 s of audio and the third
        // decode for words under p 0.5, captured replays (24 of two recordings) and six real-time runs on 2026-12-04
        // were all 0 words off; before, real-time runs were 2 words off about one time in four (docs/streaming.md).
        #expect(liveWER <= fileWER + 1, "live \(liveWER)% vs file \(fileWER)%\nlive: \(live)\nfile: \(file)")
        print("measured: live session on the virtual microphone, two_cities.wav: WER \(liveWER)% (file \(fileWER)%): \(live)")
        if liveWER > fileWER {
            // Where the words went: the last results, with their audio time ranges (seconds of session audio).
            // Each word with its start and end and its confidence, as "word@start–end:p".
            func line(_ result: SpeechTranscriber.Result) -> String {
                let words = result.text.runs.map { run -> String in
                    let word = String(result.text[run.range].characters)
                    let start = run.audioTimeRange?.start.seconds ?? .nan, end = run.audioTimeRange?.end.seconds ?? .nan
                    let p = run.transcriptionConfidence ?? .nan
                    return word + String(format: "@%.2f–%.2f:%.2f", start, end, p)
                }
                return "\(result.isFinal ? "final" : "volatile") \(result.range.start.seconds)–\(result.range.end.seconds) s, finalized to \(result.resultsFinalizationTime.seconds) s: " + words.joined()
            }
            print("last results:\n" + (volatiles.suffix(3) + finals.suffix(3)).map(line).joined(separator: "\n"))
        }
        // No word delivered twice: a repeated final would add words the file transcription does not have.
        #expect(WordErrorRate.words(live).count <= WordErrorRate.words(file).count + 2, "\(live)")
    }

    @Test("what the machine plays is transcribed from the default output's monitor")
    func systemAudio() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let stream = session.startTranscribingSystemAudio(options: SystemAudioTranscriptionOptions(target: .defaultOutput))
        let collector = Task { await SpeechSessionTests.collect(stream) }
        // paplay without a device plays to the default output (the daemon's virtual speaker).
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        player.arguments = ["paplay", Fixtures.audio("beckett.wav").path]
        try await Task.sleep(for: .seconds(2))
        try player.runWithDefaultSignals()
        while player.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1))
        await session.stopTranscribing()
        let (finals, _, error) = await collector.value
        #expect(error == nil)
        let text = finals.map { String($0.text.characters) }.joined()
        let reference = try await offPool { try SpeechSessionTests.fileText("beckett.wav") }
        #expect(WordErrorRate.percent(reference: reference, hypothesis: text) <= 10, "\(text)\nvs\n\(reference)")
    }

    @Test("a minute of silence, room noise and broadband noise on the microphone gives no text with voice activation")
    func noTextFromNoise() async throws {
        let noise = Noise.silence(seconds: 20) + Noise.room(seconds: 20, rms: 0.003) + Noise.white(seconds: 20, rms: 0.03)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-noise-\(UUID().uuidString).wav")
        try Noise.writeWAV(noise, to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        session.configureVoiceActivation(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true)
        let stream = try #require(session.speechDetectorResultsStream)
        let detections = Task {
            var speech = 0
            for await detection in stream where detection.speechDetected { speech += 1 }
            return speech
        }
        let collector = Task { await SpeechSessionTests.collect(session.startTranscribing()) }
        let player = try VirtualMicrophone.play(file, delay: 0.5)
        while player.isRunning { try await Task.sleep(for: .milliseconds(200)) }
        await session.stopTranscribing()
        let (finals, volatiles, error) = await collector.value
        session.disableVoiceActivation()
        #expect(error == nil)
        let words = WordErrorRate.words((finals + volatiles).map { String($0.text.characters) }.joined(separator: " "))
        #expect(words.isEmpty, "\(words)")
        #expect(await detections.value == 0)
    }

    @Test("stopping mid-sentence keeps the words spoken before the stop")
    func stopMidSentence() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let stream = session.startTranscribing()
        let collector = Task { await SpeechSessionTests.collect(stream) }
        let player = try VirtualMicrophone.play(Fixtures.audio("two_cities.wav"), delay: 0.5)
        try await Task.sleep(for: .seconds(6.5))
        await session.stopTranscribing()
        player.terminate()
        let (finals, _, error) = await collector.value
        #expect(error == nil)
        let words = WordErrorRate.words(finals.map { String($0.text.characters) }.joined())
        #expect(words.starts(with: ["it", "was", "the", "best", "of", "times"]), "\(words)")
        #expect(words.contains("worst"), "\(words)")
    }
}
}
