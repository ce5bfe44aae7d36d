@testable import Speech
import Foundation
import Testing

/// The commit rules on made-up hypotheses: no model, no audio.
@Suite("Commit policy")
struct CommitPolicyTests {
    static func word(_ text: String, _ start: Double, _ end: Double, _ p: Double = 0.9) -> TimedWord {
        TimedWord(text: text, start: start, end: end, confidence: p)
    }

    static func texts(_ words: [TimedWord]) -> [String] { words.map(\.text) }

    var policy = CommitPolicy(configuration: .live(language: "en"))

    @Test("two decodes that agree commit their common words; the rest stays pending")
    mutating func agreement() {
        let first = policy.decide(on: [Self.word(" It", 0, 0.2), Self.word(" was", 0.2, 0.4)], audioTime: 1)
        #expect(first.committed.isEmpty)
        #expect(Self.texts(first.pending) == [" It", " was"])
        let second = policy.decide(on: [Self.word(" It", 0, 0.2), Self.word(" was", 0.2, 0.4), Self.word(" the", 0.4, 0.6)], audioTime: 1.5)
        #expect(Self.texts(second.committed) == [" It", " was"])
        #expect(Self.texts(second.pending) == [" the"])
        #expect(second.shown == 1)
    }

    @Test("a word under 0.5 needs a third agreeing decode")
    mutating func thirdAgreement() {
        let unsure = Self.word(" And", 0, 0.3, 0.25)
        _ = policy.decide(on: [unsure, Self.word(" sure", 0.3, 0.6)], audioTime: 1)
        let second = policy.decide(on: [unsure, Self.word(" sure", 0.3, 0.6)], audioTime: 1.5)
        #expect(second.committed.isEmpty)
        let third = policy.decide(on: [unsure, Self.word(" sure", 0.3, 0.6)], audioTime: 2)
        #expect(Self.texts(third.committed) == [" And", " sure"])
    }

    @Test("a word under 0.6 that the earlier decode heard at its audio's end needs a third agreeing decode")
    mutating func barelyHeard() {
        _ = policy.decide(on: [Self.word(" some", 0, 0.3), Self.word(" it's", 0.3, 0.95, 0.55)], audioTime: 1)
        let second = policy.decide(on: [Self.word(" some", 0, 0.3), Self.word(" it's", 0.3, 0.9, 0.55), Self.word(" noisiest", 0.9, 1.4)], audioTime: 1.5)
        #expect(Self.texts(second.committed) == [" some"])
        // Heard well before the audio's end the first time, the same word commits after two.
        var other = CommitPolicy(configuration: .live(language: "en"))
        _ = other.decide(on: [Self.word(" some", 0, 0.3), Self.word(" its", 0.3, 0.5, 0.55), Self.word(" noisiest", 0.5, 0.9)], audioTime: 1)
        let settled = other.decide(on: [Self.word(" some", 0, 0.3), Self.word(" its", 0.3, 0.5, 0.55), Self.word(" noisiest", 0.5, 0.9)], audioTime: 1.5)
        #expect(Self.texts(settled.committed) == [" some", " its", " noisiest"])
    }

    @Test("punctuation that ends the decode stays volatile while its word commits")
    mutating func trailingPunctuation() {
        _ = policy.decide(on: [Self.word(" times.", 0, 0.5)], audioTime: 1)
        let second = policy.decide(on: [Self.word(" times.", 0, 0.5)], audioTime: 1.5)
        #expect(Self.texts(second.committed) == [" times"])
        #expect(Self.texts(second.pending) == ["."])
        #expect(Self.texts(policy.pending) == ["."])
    }

    @Test("a volatile word the audio's end cuts is not shown until a decode hears it out; the words before it are")
    mutating func cutWordHidden() {
        // At 3.0 s of audio the decode wrote "carrot." for the "carrots" still being spoken (its end clamped there).
        let cut = policy.decide(on: [Self.word(" turnips", 2.26, 2.54), Self.word(" and", 2.54, 2.82), Self.word(" carrot.", 2.84, 2.99)],
                                audioTime: 3.0)
        #expect(Self.texts(Array(cut.pending[..<cut.shown])) == [" turnips", " and"])
        // Heard out, 0.34 s before the next decode's audio ends, it is shown.
        var other = CommitPolicy(configuration: .live(language: "en"))
        let whole = other.decide(on: [Self.word(" turnips", 2.26, 2.54), Self.word(" and", 2.54, 2.82), Self.word(" carrots", 2.84, 3.16)],
                                 audioTime: 3.5)
        #expect(whole.shown == 3)
        // Punctuation at the audio's end is no cut word.
        var third = CommitPolicy(configuration: .live(language: "en"))
        #expect(third.decide(on: [Self.word(" dinner", 1.54, 1.70), Self.word(".", 2.0, 2.0)], audioTime: 2.0).shown == 2)
    }

    @Test("volatile words from the first one under 0.15 on are not shown, wherever it stands")
    mutating func unsureWordHidesTheRest() {
        // The synthesized passage's "gulls argued over scraps", which flipped between two spellings at every update.
        let decision = policy.decide(on: [
            Self.word(" while", 5.22, 5.52, 0.55), Self.word(" dialed", 5.52, 5.96, 0.29), Self.word(" argue", 5.96, 6.06, 0.06),
            Self.word(" Dover's", 6.06, 6.58, 0.38), Self.word(" crap", 6.58, 6.88, 0.71), Self.word(" near", 6.88, 7.14, 0.79),
        ], audioTime: 8)
        // "dialed" (p 0.29) then ends the shown words, and the rule for the end (under 0.5) hides it too.
        #expect(Self.texts(Array(decision.pending[..<decision.shown])) == [" while"])
        // Punctuation is never unsure, and with no unsure word every word is shown.
        var other = CommitPolicy(configuration: .live(language: "en"))
        let sure = other.decide(on: [Self.word(" near", 6.88, 7.14, 0.79), Self.word(",", 7.14, 7.14, 0.05), Self.word(" the", 7.14, 7.38, 0.98)],
                                audioTime: 8)
        #expect(sure.shown == 3)
    }

    @Test("an unlikely word at the decode's end never commits, and a volatile one under 0.5 is not shown")
    mutating func unlikelyEnd() {
        let invented = Self.word(" You", 2, 2.2, 0.1)
        _ = policy.decide(on: [Self.word(" only.", 1, 1.5), invented], audioTime: 3)
        let second = policy.decide(on: [Self.word(" only.", 1, 1.5), invented], audioTime: 3.5)
        #expect(Self.texts(second.committed) == [" only."])
        #expect(Self.texts(second.pending) == [" You"])
        #expect(second.shown == 0)
        #expect(policy.withoutUnlikelyEnd([Self.word(" only.", 1, 1.5), invented]).map(\.text) == [" only."])
        // A placeless word (under 66 ms) needs 0.5 to count as likely.
        #expect(policy.isUnlikelyAtEnd(Self.word(" can", 2, 2.0, 0.36)))
        #expect(!policy.isUnlikelyAtEnd(Self.word(" Only.", 2, 2.02, 0.8)))
        #expect(!policy.isUnlikelyAtEnd(Self.word(".", 2, 2, 0.01)))
    }

    @Test("aligned commit finalizes words placed well before the audio's end without waiting for agreement")
    func alignedCommit() {
        var configuration = StreamingTranscription.Configuration.live(language: "en")
        configuration.policy = .alignedCommit(margin: 0.6)
        var aligned = CommitPolicy(configuration: configuration)
        let decision = aligned.decide(
            on: [Self.word(" Ever", 0, 0.4), Self.word(" tried", 0.4, 0.9), Self.word(" ever", 1.2, 1.5)], audioTime: 1.6)
        #expect(Self.texts(decision.committed) == [" Ever", " tried"])
        #expect(Self.texts(decision.pending) == [" ever"])
    }

    @Test("with a holdback, agreed words near the audio's end wait")
    func holdback() {
        var configuration = StreamingTranscription.Configuration.live(language: "en")
        configuration.holdbackSeconds = 1
        var held = CommitPolicy(configuration: configuration)
        let words = [Self.word(" Fail", 0, 0.5), Self.word(" again", 0.5, 1.2)]
        _ = held.decide(on: words, audioTime: 1.5)
        let second = held.decide(on: words, audioTime: 2)
        #expect(Self.texts(second.committed) == [" Fail"])
        #expect(Self.texts(second.pending) == [" again"])
    }
}

extension CommitPolicyTests {
    /// The update before a flush at the end of continuous speech (the eval clips joined, replayed at phase 0.375 s),
    /// and the flush's decode, which went on at "In 1813." and left out the sentence before it.
    static let shownBeforeSkip = [
        word(" He", 24.44, 24.58), word(" had", 24.58, 24.76), word(" your", 24.76, 24.96), word(" duxu", 24.96, 25.44),
        word(" and", 25.44, 25.60), word(" greasy", 25.60, 25.94), word(" wash", 25.94, 26.20), word(" for", 26.20, 26.44),
        word(" all", 26.50, 26.70), word(" year.", 26.70, 26.82), word(" In", 26.98, 27.08),
    ]
    static let skippingDecode = [word(" In", 26.90, 26.90), word(" 1813.", 26.90, 27.96)]

    @Test("a decode that starts over a second after the shown words, past two of them, skipped speech")
    func skippedSpeech() {
        #expect(policy.skipsShownWords(Self.skippingDecode, shown: Self.shownBeforeSkip))
        // The same words found again, or spelled differently, are no skip.
        #expect(!policy.skipsShownWords(Self.shownBeforeSkip, shown: Self.shownBeforeSkip))
        #expect(!policy.skipsShownWords([Self.word(" She", 24.40, 24.58)], shown: Self.shownBeforeSkip))
        // One shown word left behind (a word the next decode dropped), or nothing shown before, is no skip either.
        let oneWord = [Self.word(" So,", 24.0, 24.3), Self.word(" In", 26.98, 27.08)]
        #expect(!policy.skipsShownWords(Self.skippingDecode, shown: oneWord))
        #expect(!policy.skipsShownWords(Self.skippingDecode, shown: []))
        // Punctuation is no word that was skipped.
        let punctuation = [Self.word(".", 24.0, 24.0), Self.word(",", 24.5, 24.5), Self.word(" In", 26.98, 27.08)]
        #expect(!policy.skipsShownWords(Self.skippingDecode, shown: punctuation))
    }

    @Test("a flush whose decode skipped shown words keeps them, then the decode's words")
    func skippedWordsMerged() {
        let merged = CommitPolicy.mergingSkippedWords(Self.skippingDecode, shown: Self.shownBeforeSkip)
        #expect(Self.texts(merged).joined() == " He had your duxu and greasy wash for all year. In 1813.")
    }
}
