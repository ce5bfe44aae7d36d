@testable import AuralKit
@testable import Speech
import Testing

@Suite("LocalAgreement")
struct LocalAgreementTests {
    private func words(_ text: String, from start: Double = 0) -> [TimedWord] {
        text.split(separator: " ").enumerated().map { index, word in
            TimedWord(text: " " + word, start: start + Double(index), end: start + Double(index) + 0.5, confidence: 0.9)
        }
    }

    @Test("commits the longest prefix two consecutive hypotheses share, and keeps the rest pending")
    func commitsCommonPrefix() {
        var policy = LocalAgreement()
        let first = policy.agree(on: words("the cat sat"))
        #expect(first.committed.isEmpty)
        #expect(first.pending.map(\.text) == [" the", " cat", " sat"])
        let second = policy.agree(on: words("the cat sits on"))
        #expect(second.committed.map(\.text) == [" the", " cat"])
        #expect(second.pending.map(\.text) == [" sits", " on"])
        // The next hypothesis starts after the committed words.
        let third = policy.agree(on: words("sits on the mat"))
        #expect(third.committed.map(\.text) == [" sits", " on"])
        #expect(third.pending.map(\.text) == [" the", " mat"])
    }

    @Test("a word spelled differently in the same place, followed by three words both decodes say alike, takes the later spelling and commits with them")
    func settlesASubstitution() {
        var policy = LocalAgreement(substitutionContext: 3)
        _ = policy.agree(on: words("like the bestant period that some of"))
        let second = policy.agree(on: words("like the present period, that some of its"))
        // "period" and "period," say the same; the committed words are the later decode's.
        #expect(second.committed.map(\.text) == [" like", " the", " present", " period,", " that", " some", " of"])
        #expect(second.pending.map(\.text) == [" its"])
        #expect(second.agreements == [2, 2, 3, 3, 2, 2, 2])
    }

    @Test("a settled substitution keeps the surer spelling: an unlikely later one loses to a likely earlier one")
    func settlesOnTheSurerSpelling() {
        var policy = LocalAgreement(substitutionContext: 3)
        let earlier = [TimedWord(text: " Ever", start: 0, end: 0.3, confidence: 0.9), TimedWord(text: " tried.", start: 0.3, end: 0.7, confidence: 0.8)]
            + words("ever failed no", from: 1)
        let later = [TimedWord(text: " Evertried.", start: 0, end: 0.7, confidence: 0.3)] + words("Ever failed. No matter", from: 1)
        _ = policy.agree(on: earlier)
        let second = policy.agree(on: later)
        #expect(second.committed.map(\.text).prefix(2) == [" Ever", " tried."])
        #expect(second.agreements.prefix(2) == [3, 3])
    }

    @Test("two words for one in the same place settle as one substitution")
    func settlesASplitWord() {
        var policy = LocalAgreement(substitutionContext: 3)
        let earlier = [TimedWord(text: " epoch", start: 0, end: 0.4, confidence: 0.9), TimedWord(text: " in", start: 0.4, end: 0.6, confidence: 0.5),
                       TimedWord(text: " credulity,", start: 0.6, end: 1.2, confidence: 0.6)] + words("it was the", from: 1.3)
        let later = [TimedWord(text: " epoch", start: 0, end: 0.4, confidence: 0.9), TimedWord(text: " incredulity,", start: 0.45, end: 1.2, confidence: 0.6)]
            + words("it was the season", from: 1.3)
        _ = policy.agree(on: earlier)
        let second = policy.agree(on: later)
        #expect(second.committed.map(\.text) == [" epoch", " incredulity,", " it", " was", " the"])
    }

    @Test("two substitutions a word or two apart settle together when three agreeing words follow the second")
    func settlesCloseSubstitutions() {
        // Two decodes of continuous speech (the eval clips joined) that flipped between these spellings for 2 s.
        var policy = LocalAgreement(substitutionContext: 3)
        _ = policy.agree(on: words("ten meters. You had your dog suit and greasy"))
        let second = policy.agree(on: words("ten meters. He had your duck suit and greasy wash"))
        #expect(second.committed.map(\.text).joined() == " ten meters. He had your duck suit and greasy")
        #expect(second.pending.map(\.text) == [" wash"])
        // With only two agreeing words after the second, or none between the two, nothing after them settles.
        var short = LocalAgreement(substitutionContext: 3)
        _ = short.agree(on: words("meters. You had your dog suit and"))
        #expect(short.agree(on: words("meters. He had your duck suit and")).committed.map(\.text) == [" meters."])
        var adjacent = LocalAgreement(substitutionContext: 3)
        _ = adjacent.agree(on: words("meters. You had dog suit and greasy wash"))
        #expect(adjacent.agree(on: words("meters. He has duck suit and greasy wash")).committed.map(\.text) == [" meters."])
        // A third substitution among the words after the second is one too many.
        var third = LocalAgreement(substitutionContext: 3)
        _ = third.agree(on: words("meters. You had your dog suit in greasy wash water"))
        #expect(third.agree(on: words("meters. He had your duck suit and greasy wash water")).committed.map(\.text) == [" meters."])
    }

    @Test("a substitution waits as LocalAgreement does when fewer than three words follow it, when it is not in the same place, or with no substitution context")
    func unsettledSubstitutions() {
        var short = LocalAgreement(substitutionContext: 3)
        _ = short.agree(on: words("you had your"))
        #expect(short.agree(on: words("he had your")).committed.isEmpty)
        // Both decodes need the three words after it.
        #expect(short.agree(on: words("you had your duck")).committed.isEmpty)

        var moved = LocalAgreement(substitutionContext: 3)
        _ = moved.agree(on: words("you had your duck soup"))
        #expect(moved.agree(on: words("he had your duck soup", from: 0.5)).committed.isEmpty)

        var plain = LocalAgreement()
        _ = plain.agree(on: words("you had your duck soup"))
        #expect(plain.agree(on: words("he had your duck soup")).committed.isEmpty)
    }

    @Test("counts the consecutive decodes that showed each committed word; held-back words keep their count")
    func agreementCounts() {
        var policy = LocalAgreement()
        _ = policy.agree(on: words("in short the"))
        let second = policy.agree(on: words("in short the period"))
        #expect(second.agreements == [2, 2, 2])
        // The caller commits "in" and holds "short the period" back: the next decode that repeats them is their third.
        policy.holdBack(Array((second.committed + second.pending).dropFirst()))
        let third = policy.agree(on: words("short the period was"))
        #expect(third.committed.map(\.text) == [" short", " the", " period"])
        #expect(third.agreements == [3, 3, 2])
        // A decode that differs starts the count again.
        let fourth = policy.agree(on: words("is so"))
        #expect(fourth.committed.isEmpty && fourth.agreements.isEmpty)
        #expect(policy.agree(on: words("is so far")).agreements == [2, 2])
    }

    @Test("punctuation and case count: 'Hello,' and 'Hello.' do not agree")
    func exactWords() {
        var policy = LocalAgreement()
        _ = policy.agree(on: [TimedWord(text: " Hello,", start: 0, end: 1, confidence: 1)])
        #expect(policy.agree(on: [TimedWord(text: " Hello.", start: 0, end: 1, confidence: 1)]).committed.isEmpty)
        #expect(policy.agree(on: [TimedWord(text: "Hello.", start: 0, end: 1, confidence: 1)]).committed.map(\.text) == ["Hello."])
    }

    @Test("committed words carry the later hypothesis's times")
    func laterTimes() {
        var policy = LocalAgreement()
        _ = policy.agree(on: words("one two", from: 0))
        let result = policy.agree(on: words("one two three", from: 0.2))
        #expect(result.committed.first?.start == 0.2)
    }

    @Test("the words after committed text are found by character count, a straddling word keeps its tail")
    func wordsAfterPrefix() {
        let all = [
            TimedWord(text: " Hello", start: 0, end: 0.4, confidence: 1), TimedWord(text: " world.", start: 0.4, end: 0.9, confidence: 1),
            TimedWord(text: " Next", start: 1, end: 1.3, confidence: 1),
        ]
        #expect(LiveDecoder.words(after: " Hello", in: all).map(\.text) == [" world.", " Next"])
        #expect(LiveDecoder.words(after: " Hello world", in: all).map(\.text) == [".", " Next"])
        #expect(LiveDecoder.words(after: "", in: all).count == 3)
        #expect(LiveDecoder.words(after: " Hello world. Next", in: all).isEmpty)
    }
}
