@testable import AuralKit
import Testing

/// The rules of `StreamingTranscription` that need no model.
@Suite("StreamingTranscription rules")
struct StreamingTranscriptionTests {
    @Test("new words must fit the audio after the committed ones: a repeated sentence squeezed into a second does not")
    func newWordsFitTheAudio() {
        // Speech: 3 words in the 0.5 s of a cadence, 30 in 8 s, 2 where the committed words' end was placed late.
        #expect(StreamingTranscription.fitsTheAudio(wordCount: 3, from: 10, to: 10.5))
        #expect(StreamingTranscription.fitsTheAudio(wordCount: 30, from: 2, to: 10))
        #expect(StreamingTranscription.fitsTheAudio(wordCount: 2, from: 10.2, to: 10))
        // The CI case: 24 words after the final "only", with about a second of audio left.
        #expect(!StreamingTranscription.fitsTheAudio(wordCount: 24, from: 43.6, to: 44.6))
        #expect(!StreamingTranscription.fitsTheAudio(wordCount: 10, from: 10, to: 11))
    }
}
