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
}

/// Progress values reported from any thread.
final class FileProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Double] = []
    func add(_ value: Double) { lock.withLock { stored.append(value) } }
    var values: [Double] { lock.withLock { stored } }
}
