@testable import Speech
import Testing

/// `LiveBuffer`'s bookkeeping, with no model: samples, times, committed words and the previous text through appends,
/// skips, trims and cuts. Audio is 16 kHz; "speech" is a constant 0.1 (RMS 0.1, far above `silenceRMS`).
@Suite("LiveBuffer")
struct LiveBufferTests {
    static let rate = 16_000

    static func speech(_ seconds: Double) -> [Float] { [Float](repeating: 0.1, count: Int(seconds * Double(rate))) }
    static func silence(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * Double(rate))) }

    /// One word per second of `texts`, starting at `from` seconds, each 0.8 s long.
    static func words(_ texts: [String], from: Double) -> [TimedWord] {
        texts.enumerated().map { TimedWord(text: $0.element, start: from + Double($0.offset), end: from + Double($0.offset) + 0.8, confidence: 0.9) }
    }

    static func buffer(contextPrompt: String? = nil) -> LiveBuffer {
        LiveBuffer(configuration: .live(language: "en", contextPrompt: contextPrompt))
    }

    @Test("appends and skips keep the session clock; a skip with audio in the buffer joins it as silence")
    func clock() {
        var buffer = Self.buffer(contextPrompt: "AuralKit")
        #expect(buffer.promptText == "AuralKit")
        buffer.skip(Self.rate, hasPending: false)
        #expect(buffer.startSeconds == 1 && buffer.seconds == 0)
        buffer.append(Self.speech(2))
        buffer.skip(Self.rate / 2, hasPending: true)
        #expect(buffer.receivedSeconds == 3.5 && buffer.startSeconds == 1 && buffer.seconds == 2.5)
        #expect(!buffer.isSilent())
        #expect(buffer.isSilent(from: 2 * Self.rate))
        // Skipped samples count as decoded; appended ones wait for the next decode.
        #expect(buffer.undecodedSeconds == 2)
        buffer.markDecoded()
        #expect(buffer.undecodedSeconds == 0)
    }

    @Test("a long skip after every word is final drops the buffer; with words pending it keeps them")
    func longSkip() {
        var buffer = Self.buffer()
        buffer.append(Self.speech(3))
        buffer.commit(Self.words([" One", " two", " three"], from: 0))
        var pending = buffer
        buffer.skip(13 * Self.rate, hasPending: false)
        #expect(buffer.seconds == 0 && buffer.startSeconds == 16 && buffer.committed.isEmpty)
        #expect(buffer.promptText == " One two three")
        pending.skip(13 * Self.rate, hasPending: true)
        #expect(pending.seconds == 16 && pending.committed.count == 3)
    }

    @Test("a buffer over 15 s is trimmed at a sentence end that leaves 6–12 s, else at the latest word 6 s back")
    func trimsAtASentenceEnd() {
        var buffer = Self.buffer()
        buffer.append(Self.speech(16))
        // Words at 0…15 s; "four." ends a sentence at 4.8 s, "eight." at 8.8 s.
        let texts = (0..<16).map { index in index == 4 ? " four." : index == 8 ? " eight." : " w\(index)" }
        buffer.commit(Self.words(texts, from: 0))
        #expect(buffer.isTrimmable && !buffer.needsForcedCut)
        buffer.trim()
        // Received 16 s: the latest word ending by 10 s is w9 (9.8 s); the sentence end within 6 s before that, 8.8 s.
        #expect(abs(buffer.startSeconds - 8.8) < 1e-3)
        #expect(buffer.committed.first?.text == " w9")
        #expect(buffer.promptText.hasSuffix(" w7 eight."))
        #expect(abs(buffer.seconds - 7.2) < 1e-3)
    }

    @Test("the previous text keeps its last 200 characters")
    func promptIsBounded() {
        var buffer = Self.buffer()
        buffer.append(Self.speech(2))
        buffer.commit([TimedWord(text: String(repeating: "a", count: 250) + "z", start: 0, end: 1, confidence: 1)])
        buffer.clear()
        #expect(buffer.promptText.count == 200 && buffer.promptText.hasSuffix("z"))
        #expect(buffer.startSeconds == 2 && buffer.seconds == 0)
    }

    @Test("a buffer near 30 s that cannot be trimmed (one committed word) is cut by force to its second half")
    func forcedCut() {
        var buffer = Self.buffer()
        buffer.append(Self.speech(29))
        buffer.commit(Self.words([" only"], from: 2))
        #expect(!buffer.isTrimmable && buffer.needsForcedCut)
        buffer.forceCut()
        #expect(abs(buffer.startSeconds - 14.5) < 1e-3)
        #expect(buffer.committed.isEmpty && buffer.promptText == " only")
    }

    @Test("the end of speech keeps the last 6 s and their words; silence after the words is noticed")
    func keepsRecentAudio() {
        var buffer = Self.buffer()
        // Speech until the last word's end (9.8 s), then silence.
        buffer.append(Self.speech(9.8) + Self.silence(2.2))
        buffer.commit(Self.words([" a", " b", " c", " d", " e", " f", " g", " h", " i", " j"], from: 0))
        #expect(buffer.isSilentAfterCommitted)
        buffer.keepRecentAudio()
        // Received 12 s: the latest word ending by 6 s is " f" (5.8 s).
        #expect(abs(buffer.startSeconds - 5.8) < 1e-3 && buffer.committed.first?.text == " g")
        #expect(buffer.promptText == " a b c d e f")
        buffer.dropSilence()
        #expect(buffer.seconds == 1 && buffer.committed.isEmpty && buffer.promptText.hasSuffix(" j"))
    }

    @Test("the last sound is found per 100 ms frame, and is nil in silence")
    func lastSound() {
        let samples = Self.silence(0.25) + Self.speech(0.1) + Self.silence(0.5)
        // Frames of 1,600 samples: the speech (4,000–5,600) falls in frames 2 and 3, so the last sound ends at 6,400.
        #expect(LiveBuffer.lastSoundSample(in: samples[...], silenceRMS: 0.003) == 6_400)
        #expect(LiveBuffer.lastSoundSample(in: Self.silence(1)[...], silenceRMS: 0.003) == nil)
        #expect(LiveBuffer.lastSoundSample(in: samples[4_800...], silenceRMS: 0.003) == 1_600)
    }
}
