@testable import AuralKit
@testable import Speech
import AuralAudio
import Foundation
import TestSupport
import Testing

/// Contextual strings reach the decoder as a prompt and fix a word tiny.en otherwise gets wrong: espeak-ng says
/// "Kubernetes", and without help the model writes "Qber 8".
@MainActor
@Suite("Contextual strings", .requiresFixtures(models: ["tiny.en"]))
struct ContextualStringsTests {
    nonisolated static let sentence = "We deployed the service on Kubernetes last night."

    /// The sentence spoken by espeak-ng (which `scripts/setup` installs) into a WAV file in the temporary folder.
    nonisolated static func spokenSentence() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-context-\(UUID().uuidString).wav")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["espeak-ng", "-w", url.path, "-s", "150", sentence]
        try process.runWithDefaultSignals()
        // Foundation's waitUntilExit can miss the exit while other tests spawn processes, and then waits forever (a CI
        // run hung here on a cooperative thread).
        guard process.waitForExit() == 0 else { throw EspeakFailed() }
        return url
    }

    static func text(_ results: [SpeechTranscriber.Result]) -> String {
        results.filter(\.isFinal).map { String($0.text.characters) }.joined()
    }

    @Test("a file: the word is wrong without the string and right with it")
    func file() async throws {
        let audio = try await offPool { try Self.spokenSentence() }
        defer { try? FileManager.default.removeItem(at: audio) }
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let plain = Self.text(try await session.transcribe(audioFile: audio))
        let helped = Self.text(try await session.transcribe(
            audioFile: audio, options: FileTranscriptionOptions(contextualStrings: [.general: ["Kubernetes"]])))
        #expect(!plain.contains("Kubernetes"), "\(plain)")
        #expect(helped.contains("Kubernetes"), "\(helped)")
    }

    @Test("live: the string prompts every update of the session")
    func live() async throws {
        let audio = try await offPool { try Self.spokenSentence() }
        defer { try? FileManager.default.removeItem(at: audio) }
        let samples = try AudioFileLoader.loadMono16k(url: audio)
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let plain = await SpeechSessionTests.collect(session.startTranscribing(from: BufferSource(samples: samples)))
        let helped = await SpeechSessionTests.collect(
            session.startTranscribing(from: BufferSource(samples: samples), contextualStrings: [.general: ["Kubernetes"]]))
        let plainText = plain.finals.map { String($0.text.characters) }.joined()
        let helpedText = helped.finals.map { String($0.text.characters) }.joined()
        #expect(!plainText.contains("Kubernetes"), "\(plainText)")
        #expect(helpedText.contains("Kubernetes"), "\(helpedText)")
    }
}

/// espeak-ng did not write the sentence (`scripts/setup` installs it).
struct EspeakFailed: Error {}
