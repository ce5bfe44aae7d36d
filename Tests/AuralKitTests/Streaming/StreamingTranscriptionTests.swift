@testable import AuralKit
@testable import Speech
import Testing

/// The rules of `StreamingTranscription` that need no model.
@Suite("StreamingTranscription rules")
struct StreamingTranscriptionTests {
    @Test("new words must fit the audio after the committed ones: a repeated sentence squeezed into a second does not")
    func newWordsFitTheAudio() {
        // Speech: 3 words in the 0.5 s of a cadence, 30 in 8 s, 2 where the committed words' end was placed late.
        #expect(LiveDecoder.fitsTheAudio(wordCount: 3, from: 10, to: 10.5))
        #expect(LiveDecoder.fitsTheAudio(wordCount: 30, from: 2, to: 10))
        #expect(LiveDecoder.fitsTheAudio(wordCount: 2, from: 10.2, to: 10))
        // The CI case: 24 words after the final "only", with about a second of audio left.
        #expect(!LiveDecoder.fitsTheAudio(wordCount: 24, from: 43.6, to: 44.6))
        #expect(!LiveDecoder.fitsTheAudio(wordCount: 10, from: 10, to: 11))
    }
}

extension StreamingTranscriptionTests {
    @Test("words stacked at one instant at a decode's end are not heard; one word there, or punctuation, stays")
    func stackedEndIsDropped() {
        func word(_ text: String, _ start: Double, _ end: Double) -> TimedWord {
            TimedWord(text: text, start: start, end: end, confidence: 0.9)
        }
        // The flush at the end of a speech that wrote the words before it again, all at 3.94 s.
        let heard = [word(" me", 3.08, 3.36), word("?", 3.36, 3.36)]
        let repeated = [word(" Yes.", 3.94, 3.94), word(" Do", 3.94, 3.94), word(" you", 3.94, 3.94), word(" hear", 3.94, 3.94),
                        word(" me?", 3.94, 3.94)]
        #expect(LiveDecoder.withoutStackedEnd(heard + repeated) == heard)
        #expect(LiveDecoder.withoutStackedEnd(repeated).isEmpty)
        // A word cut by the audio's end, and punctuation after a word, are single instants: they stay.
        let cut = heard + [word(" Yes", 3.94, 3.94)]
        #expect(LiveDecoder.withoutStackedEnd(cut) == cut)
        let closed = [word(" ditch", 27.10, 27.50), word("?", 27.48, 27.48)]
        #expect(LiveDecoder.withoutStackedEnd(closed) == closed)
        // Fast speech has time of its own for each word.
        let fast = [word(" a", 1.00, 1.04), word(" bit", 1.04, 1.12), word(" of", 1.12, 1.16)]
        #expect(LiveDecoder.withoutStackedEnd(fast) == fast)
    }

    @Test("punctuation that ends a decode is split from its word, as an instant at the word's end")
    func trailingPunctuationSplits() throws {
        let word = TimedWord(text: " period.", start: 31.86, end: 32.22, confidence: 0.9)
        let split = try #require(CommitPolicy.splitTrailingPunctuation(word))
        #expect(split.word == TimedWord(text: " period", start: 31.86, end: 32.22, confidence: 0.9))
        #expect(split.punctuation == TimedWord(text: ".", start: 32.22, end: 32.22, confidence: 0.9))
        #expect(CommitPolicy.splitTrailingPunctuation(TimedWord(text: " Really?!", start: 0, end: 1, confidence: 1))?
            .punctuation.text == "?!")
        #expect(CommitPolicy.splitTrailingPunctuation(TimedWord(text: "你好。", start: 0, end: 1, confidence: 1))?
            .word.text == "你好")
        // Nothing to split: no punctuation at the end, or nothing but punctuation.
        #expect(CommitPolicy.splitTrailingPunctuation(TimedWord(text: " times", start: 0, end: 1, confidence: 1)) == nil)
        #expect(CommitPolicy.splitTrailingPunctuation(TimedWord(text: " Mr", start: 0, end: 1, confidence: 1)) == nil)
        #expect(CommitPolicy.splitTrailingPunctuation(TimedWord(text: ".", start: 0, end: 1, confidence: 1)) == nil)
    }

    @Test("only a leading run of bare punctuation is held punctuation")
    func punctuationOnly() {
        func words(_ texts: String...) -> [TimedWord] { texts.map { TimedWord(text: $0, start: 0, end: 0, confidence: 1) } }
        #expect(CommitPolicy.punctuationOnly(words(".", " The")).map(\.text) == ["."])
        #expect(CommitPolicy.punctuationOnly(words(" The", ".")).isEmpty)
        #expect(CommitPolicy.punctuationOnly(words(" .")).isEmpty)
        #expect(CommitPolicy.punctuationOnly([]).isEmpty)
    }

    @Test("punctuation a decode adds after a committed word starts at the word's end")
    func straddlingPunctuationIsAnInstant() {
        let words = [TimedWord(text: " period,", start: 31.86, end: 32.22, confidence: 1), TimedWord(text: " that", start: 32.3, end: 32.9, confidence: 1)]
        let after = LiveDecoder.words(after: " period", in: words)
        #expect(after.map(\.text) == [",", " that"])
        #expect(after.first?.start == 32.22 && after.first?.end == 32.22)
    }
}

extension StreamingTranscriptionTests {
    @Test("a flush commits what the last update showed when its own decode finds nothing or only the first of those words")
    func flushKeepsShownWords() {
        func words(_ texts: String...) -> [TimedWord] {
            texts.enumerated().map { TimedWord(text: $0.element, start: 40 + Double($0.offset), end: 40.5 + Double($0.offset), confidence: 0.9) }
        }
        let shown = words(" degree", " of", " comparison", " only.")
        // Empty: the flush decode failed a check (no speech, compression ratio, too many words for the audio).
        #expect(StreamingTranscription.flushWords(decoded: [], shown: shown) == shown)
        // Its last words lost to the unlikely-word rule.
        #expect(StreamingTranscription.flushWords(decoded: words(" degree", " of"), shown: shown) == shown)
        #expect(StreamingTranscription.flushWords(decoded: words(" Degree,"), shown: shown) == shown)
        // The flush heard more, or heard it otherwise: its own words.
        let more = words(" degree", " of", " comparison", " only.", " Yes.")
        #expect(StreamingTranscription.flushWords(decoded: more, shown: shown) == more)
        let other = words(" that", " some")
        #expect(StreamingTranscription.flushWords(decoded: other, shown: words(" the", " sum", " of")) == other)
        let punctuated = words(" comparison", " only.")
        #expect(StreamingTranscription.flushWords(decoded: punctuated, shown: words(" comparison", " only")) == punctuated)
        // Nothing was shown: nothing to keep.
        #expect(StreamingTranscription.flushWords(decoded: [], shown: []).isEmpty)
    }
}

extension StreamingTranscriptionTests {
    @Test("the last decode's words after the committed ones are the next decode's draft, also after a trim")
    func draftAfterTheCommittedWords() {
        let last = LiveDecoder.LastDecode()
        #expect(last.draft(after: [1, 2]).isEmpty, "no decode yet")
        last.tokens = [1, 2, 3, 4, 5]
        #expect(last.draft(after: [1, 2]) == [3, 4, 5])
        #expect(last.draft(after: [1, 2, 3, 4]) == [5], "more words committed")
        #expect(last.draft(after: [2, 3]) == [4, 5], "a trim moved the first committed word out of the buffer")
        #expect(last.draft(after: []) == [1, 2, 3, 4, 5], "nothing committed")
        #expect(last.draft(after: [1, 2, 3, 4, 5]).isEmpty, "every word committed")
        #expect(last.draft(after: [1, 9]).isEmpty, "a prefix the last decode did not hold")
    }
}
