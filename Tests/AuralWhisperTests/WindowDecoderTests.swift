import Foundation
import Testing
import TestSupport
@testable import AuralWhisper

@Suite("WindowDecoder", .heavyWork)
struct WindowDecoderTests {
    static let options = DecodingOptions(language: "en", temperatures: [0], withoutTimestamps: true)

    static func request() -> WindowRequest {
        WindowRequest(language: "en", previousTokens: [], prefixTokens: [], alignsPrefix: false, timeOffset: 0, lastSpeechTime: 0)
    }

    @Test("a window shorter than 30 s runs the encoder on fewer positions and still transcribes the audio in it")
    func shortWindow() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let samples = try Fixtures.samples("beckett.wav")  // 10 s
        let full = try decoder.encode(samples)
        let short = try decoder.encode(samples, windowFrames: 1200)
        #expect(full.positions == 1500)
        #expect(short.positions == 600)
        #expect(short.contentFrames == full.contentFrames)
        let fullText = decoder.text(of: try decoder.decode(full, request: Self.request(), options: Self.options).tokens)
        let shortText = decoder.text(of: try decoder.decode(short, request: Self.request(), options: Self.options).tokens)
        // Whisper never saw a window other than 30 s in training, so the text may change (docs/streaming.md measured
        // it), but the speech is still heard: most words agree.
        #expect(WordErrorRate.percent(reference: fullText, hypothesis: shortText) <= 50, "\(shortText)\nvs\n\(fullText)")
    }

    @Test("audio longer than the shortened window keeps what fits")
    func audioLongerThanWindow() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"), windowFrames: 400)
        #expect(window.contentFrames == 400)
        #expect(window.positions == 200)
    }
}
