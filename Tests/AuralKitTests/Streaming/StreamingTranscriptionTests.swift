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

extension StreamingTranscriptionTests {
    @Test("punctuation that ends a decode is split from its word, as an instant at the word's end")
    func trailingPunctuationSplits() throws {
        let word = TimedWord(text: " period.", start: 31.86, end: 32.22, confidence: 0.9)
        let split = try #require(StreamingTranscription.splitTrailingPunctuation(word))
        #expect(split.word == TimedWord(text: " period", start: 31.86, end: 32.22, confidence: 0.9))
        #expect(split.punctuation == TimedWord(text: ".", start: 32.22, end: 32.22, confidence: 0.9))
        #expect(StreamingTranscription.splitTrailingPunctuation(TimedWord(text: " Really?!", start: 0, end: 1, confidence: 1))?
            .punctuation.text == "?!")
        #expect(StreamingTranscription.splitTrailingPunctuation(TimedWord(text: "你好。", start: 0, end: 1, confidence: 1))?
            .word.text == "你好")
        // Nothing to split: no punctuation at the end, or nothing but punctuation.
        #expect(StreamingTranscription.splitTrailingPunctuation(TimedWord(text: " times", start: 0, end: 1, confidence: 1)) == nil)
        #expect(StreamingTranscription.splitTrailingPunctuation(TimedWord(text: " Mr", start: 0, end: 1, confidence: 1)) == nil)
        #expect(StreamingTranscription.splitTrailingPunctuation(TimedWord(text: ".", start: 0, end: 1, confidence: 1)) == nil)
    }

    @Test("only a leading run of bare punctuation is held punctuation")
    func punctuationOnly() {
        func words(_ texts: String...) -> [TimedWord] { texts.map { TimedWord(text: $0, start: 0, end: 0, confidence: 1) } }
        #expect(StreamingTranscription.punctuationOnly(words(".", " The")).map(\.text) == ["."])
        #expect(StreamingTranscription.punctuationOnly(words(" The", ".")).isEmpty)
        #expect(StreamingTranscription.punctuationOnly(words(" .")).isEmpty)
        #expect(StreamingTranscription.punctuationOnly([]).isEmpty)
    }

    @Test("punctuation a decode adds after a committed word starts at the word's end")
    func straddlingPunctuationIsAnInstant() {
        let words = [TimedWord(text: " period,", start: 31.86, end: 32.22, confidence: 1), TimedWord(text: " that", start: 32.3, end: 32.9, confidence: 1)]
        let after = StreamingTranscription.words(after: " period", in: words)
        #expect(after.map(\.text) == [",", " that"])
        #expect(after.first?.start == 32.22 && after.first?.end == 32.22)
    }
}
