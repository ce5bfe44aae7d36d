import Foundation

/// The commit rule of whisper_streaming (Macháček et al. 2023, `HypothesisBuffer.flush`): a word becomes final once
/// two consecutive decodes of the growing buffer agree on it and on every word before it.
///
/// The policy sees only hypotheses, the words each decode found after the text already committed, so it is tested
/// without a model. Words compare by their text with surrounding spaces removed; case and punctuation count, so
/// "Hello," and "Hello." do not agree. It also counts how many consecutive decodes have shown each word, for a caller
/// that asks more than two of some words.
struct LocalAgreement: Sendable {
    /// The words of the last hypothesis that were not committed, which the next hypothesis must repeat.
    private(set) var previous: [TimedWord] = []
    /// For each word of the last hypothesis, how many consecutive decodes have shown it (1: only that one).
    /// `previous` is always its end, so the counts of `previous` are its last `previous.count`.
    private var lastAgreements: [Int] = []

    /// Commits the longest common prefix of `hypothesis` and the previous hypothesis, and keeps the rest for the
    /// next comparison. Times and confidences come from `hypothesis`, the later decode. `agreements` gives, for each
    /// committed word, how many consecutive decodes have shown it (2 or more).
    mutating func agree(on hypothesis: [TimedWord]) -> (committed: [TimedWord], pending: [TimedWord], agreements: [Int]) {
        var count = 0
        while count < hypothesis.count, count < previous.count, Self.same(hypothesis[count], previous[count]) { count += 1 }
        let committed = Array(hypothesis[..<count])
        let pending = Array(hypothesis[count...])
        let agreements = lastAgreements.suffix(previous.count).prefix(count).map { $0 + 1 }
        lastAgreements = agreements + [Int](repeating: 1, count: pending.count)
        previous = pending
        return (committed, pending, agreements)
    }

    /// Makes `words`, the end of the last hypothesis, the pending words again (agreed words the caller chose not to
    /// commit yet), so the next hypothesis is compared with them from the start. They keep their counts.
    mutating func holdBack(_ words: [TimedWord]) { previous = words }

    /// Forgets the previous hypothesis (after a flush, or when the audio it described was dropped).
    mutating func reset() {
        previous = []
        lastAgreements = []
    }

    static func same(_ a: TimedWord, _ b: TimedWord) -> Bool {
        a.text.trimmingCharacters(in: .whitespaces) == b.text.trimmingCharacters(in: .whitespaces)
    }
}
