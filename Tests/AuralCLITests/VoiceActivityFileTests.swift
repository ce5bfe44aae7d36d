import Foundation
import TestSupport
import Testing

/// `aural transcribe --vad` on what users complain Whisper writes text into: silence and noise, and speech in noise.
@Suite("aural transcribe --vad on noise", .heavyWork, .requiresFixtures(audio: ["two_cities.wav"], models: ["tiny.en", "base"]))
struct VoiceActivityFileTests {
    static func temporaryWAV(_ samples: [Float]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aural-vad-\(UUID().uuidString).wav")
        try Noise.writeWAV(samples, to: url)
        return url
    }

    @Test("ten minutes of silence, room noise and broadband noise: no words", arguments: ["tiny.en", "base"])
    func noWordsFromNoise(model: String) throws {
        let file = try Self.temporaryWAV(Noise.tenMinutes())
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try CLI.run(["transcribe", file.path, "--model", model, "--vad", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(WordErrorRate.words(result.stdout).isEmpty, "\(result.stdout)")
    }

    @Test("speech in room noise between stretches of noise: WER within 1 point of the clean file")
    func speechInNoise() throws {
        let speech = try Fixtures.samples("two_cities.wav")
        let noisy = Noise.room(seconds: 20, rms: 0.003) + Noise.mix(speech, with: Noise.room(seconds: 30, rms: 0.003, seed: 3))
            + Noise.white(seconds: 20, rms: 0.03)
        let file = try Self.temporaryWAV(noisy)
        defer { try? FileManager.default.removeItem(at: file) }
        let clean = try CLI.run(["transcribe", CLI.audio("two_cities.wav"), "--model", "tiny.en", "-q"])
        let filtered = try CLI.run(["transcribe", file.path, "--model", "tiny.en", "--vad", "-q"])
        #expect(clean.status == 0 && filtered.status == 0, "\(clean.stderr)\(filtered.stderr)")
        let cleanWER = WordErrorRate.percent(reference: ReferenceTranscripts.twoCities, hypothesis: clean.stdout)
        let noisyWER = WordErrorRate.percent(reference: ReferenceTranscripts.twoCities, hypothesis: filtered.stdout)
        #expect(noisyWER <= cleanWER + 1, "noisy \(noisyWER)% vs clean \(cleanWER)%\n\(filtered.stdout)")
    }
}
