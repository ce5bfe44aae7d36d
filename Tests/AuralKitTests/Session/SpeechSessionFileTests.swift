@testable import AuralKit
@testable import Speech
import AuralWhisper
import Foundation
import TestSupport
import Testing

@MainActor
@Suite("SpeechSession files", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct SpeechSessionFileTests {
    @Test("transcribe(audioFile:) gives the file transcription's text, with word times inside the audio, and progress to 1")
    func transcribesAFile() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let progress = FileProgressLog()
        let results = try await session.transcribe(audioFile: Fixtures.audio("beckett.wav"), progressHandler: { progress.add($0) })
        let text = results.map { String($0.text.characters) }.joined()
        let reference = try await offPool {
            let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
            return try Transcriber(model: model).transcribe(
                try Fixtures.samples("beckett.wav"), options: DecodingOptions(language: "en", wordTimestamps: true))
        }
        #expect(text == reference.segments.map(\.text).joined().trimmingCharacters(in: .whitespaces))
        #expect(results.allSatisfy { $0.isFinal })
        let values = progress.values
        #expect(values.last == 1)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        let firstRun = try #require(results.first?.text.runs.first)
        #expect(firstRun.audioTimeRange != nil)
        #expect(session.status == .idle)
    }

    @Test("bad files end the stream with AuralKit's errors, in its order of checks")
    func badFiles() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let missing = URL(fileURLWithPath: "/tmp/no-such-recording-\(UUID().uuidString).wav")
        await #expect(throws: SpeechSessionError.audioFileNotFound(missing)) { try await session.transcribe(audioFile: missing) }
        let web = URL(string: "https://example.com/a.wav")!
        await #expect(throws: SpeechSessionError.audioFileInvalidURL(web)) { try await session.transcribe(audioFile: web) }
        let outside = Fixtures.audio("beckett.wav")
        let elsewhere = FileTranscriptionOptions(allowedDirectories: [URL(fileURLWithPath: "/var/empty-allowed")])
        await #expect(throws: SpeechSessionError.audioFileOutsideAllowedDirectories(outside)) {
            try await session.transcribe(audioFile: outside, options: elsewhere)
        }
        do {
            _ = try await session.transcribe(audioFile: outside, options: FileTranscriptionOptions(maxDuration: 5))
            Issue.record("a 10 s file passed a 5 s limit")
        } catch SpeechSessionError.audioFileTooLong(let maximum, let actual) {
            #expect(maximum == 5)
            #expect(abs(actual - 9.97) < 0.05)
        }
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-audio-\(UUID().uuidString).wav")
        try Data("this is not audio".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        do {
            _ = try await session.transcribe(audioFile: text)
            Issue.record("a text file was transcribed")
        } catch let error as SpeechSessionError {
            switch error {
            case .audioFileUnsupportedFormat, .audioFileReadFailed: break
            default: Issue.record("unexpected \(error)")
            }
        }
        #expect(session.status == .idle)
    }

    @Test("during a file transcription, pause returns at once and does nothing; stop ends it at once with the finals so far", .requiresFixtures(audio: ["two_cities.wav"]))
    func pauseAndStopDuringAFile() async throws {
        // Sixteen readings of the 44-s recording: twelve minutes of speech, far more than the test waits for. With six
        // (four minutes) one CI run saw its first final only when the whole file was done: the parallel tests had
        // kept this test's tasks from running for longer than the transcription took.
        let readings = 16
        let long = FileManager.default.temporaryDirectory.appendingPathComponent("long-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: long) }
        let samples = try Fixtures.samples("two_cities.wav")
        try Noise.writeWAV(Array((0..<readings).map { _ in samples }.joined()), to: long)
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let stream = session.streamTranscription(from: long)
        let firstFinal = AsyncStream.makeStream(of: Void.self)
        let collector = Task { () -> ([SpeechTranscriber.Result], (any Error)?) in
            defer { firstFinal.continuation.finish() }
            var finals: [SpeechTranscriber.Result] = []
            do {
                for try await result in stream where result.isFinal {
                    finals.append(result)
                    firstFinal.continuation.yield()
                }
            } catch {
                return (finals, error)
            }
            return (finals, nil)
        }
        // Wait for the first segment: the transcription is under way.
        for await _ in firstFinal.stream { break }
        #expect(session.status == .transcribing)
        let pauseStarted = ContinuousClock.now
        await session.pauseTranscribing()
        #expect(pauseStarted.secondsAgo < 1)
        #expect(session.status == .transcribing)
        let stopStarted = ContinuousClock.now
        await session.stopTranscribing()
        // A stop ends the decode at its next token; the 10 s leave room for a CI machine running the other tests.
        #expect(stopStarted.secondsAgo < 10)
        let (finals, error) = await collector.value
        #expect(error == nil)
        #expect(session.status == .idle)
        let heard = try #require(finals.last).range.end.seconds
        #expect(heard < Double(samples.count * readings) / 16_000 - 30, "the stop ended the transcription before its end")
    }
}

/// Progress values reported from any thread.
final class FileProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Double] = []
    func add(_ value: Double) { lock.withLock { stored.append(value) } }
    var values: [Double] { lock.withLock { stored } }
}
