@testable import AuralKit
import AuralVAD
import Foundation
import TestSupport
import Testing

/// `SpeechEnd` on real audio with the installed Silero VAD weights.
@Suite("Speech end", .requiresFixtures(audio: ["two_cities.wav"]))
struct SpeechEndTests {
    @Test("the last speech ends where get_speech_timestamps ends it, and the short sound after it does not count")
    func lastSpeech() async throws {
        let vad = try SpeechSession.loadVoiceActivityModel()
        let samples = try Fixtures.samples("two_cities.wav")
        var speechEnd = SpeechEnd(vad: vad)
        // In pieces of 20 ms, as capture delivers them.
        for start in stride(from: 0, to: samples.count, by: 320) {
            speechEnd.append(Array(samples[start..<min(samples.count, start + 320)]))
        }
        let reference = SpeechSegments.detect(
            probabilities: vad.probabilities(for: samples), sampleCount: samples.count, options: SpeechSegmentOptions(speechPadMs: 0))
        let end = try #require(speechEnd.lastSpeechSample)
        let referenceEnd = try #require(reference.last?.upperBound)
        // One chunk (32 ms): get_speech_timestamps ends speech at the first quiet chunk, SpeechEnd after the last loud one.
        #expect(abs(end - referenceEnd) <= SileroVAD.chunkSize, "\(Double(end) / 16_000) s vs \(Double(referenceEnd) / 16_000) s")
        // "only." ends at 41.7 s; the 0.2 s sound at 42.9 s scores up to 0.8 but is too short to be speech.
        #expect(Double(end) / 16_000 < 42.2, "\(Double(end) / 16_000) s")
    }
}
