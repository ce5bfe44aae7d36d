import Foundation

/// The commit rule of whisper_streaming (Macháček et al. 2023, `HypothesisBuffer.flush`): a word becomes final once
/// two consecutive decodes of the growing buffer agree on it and on every word before it.
///
/// With `substitutionContext`, a disagreement that is only one or two words spelled differently in the same place
/// ("bestant" / "present", "You" / "We", "in credulity" / "incredulity", "so." / "so"), followed by that many words
/// both decodes say alike (whatever their case and punctuation), is settled in favour of the surer spelling (the one
/// whose least likely word is likelier; the later decode's, which heard more, when they tie): the words after it no
/// longer wait for the spellings to settle, which on continuous speech they could fail to do for seconds, the
/// volatile text flipping at every update. One more such substitution may come among those words, after at least one
/// of them: it is settled in turn.
///
/// The policy sees only hypotheses, the words each decode found after the text already committed, so it is tested
/// without a model. Words compare by their text with surrounding spaces removed; case and punctuation count, so
/// "Hello," and "Hello." do not agree. It also counts how many consecutive decodes have shown each word, for a caller
/// that asks more than two of some words.
struct LocalAgreement: Sendable {
    /// Agreeing words that must follow a substitution for it to be settled; nil settles none.
    let substitutionContext: Int?
    /// The words of the last hypothesis that were not committed, which the next hypothesis must repeat.
    private(set) var previous: [TimedWord] = []
    /// For each word of the last hypothesis, how many consecutive decodes have shown it (1: only that one).
    /// `previous` is always its end, so the counts of `previous` are its last `previous.count`.
    private var lastAgreements: [Int] = []

    /// The agreement count a settled substitution's words get: as many as a word three decodes agreed on, since
    /// waiting did not settle them.
    static let settledAgreements = 3
    /// The most seconds apart the two spellings of a substitution may start, and end.
    static let substitutionSlackSeconds = 0.3

    init(substitutionContext: Int? = nil) {
        self.substitutionContext = substitutionContext
    }

    /// Commits the longest common prefix of `hypothesis` and the previous hypothesis (through settled substitutions),
    /// and keeps the rest for the next comparison. Times and confidences come from `hypothesis`, the later decode.
    /// `agreements` gives, for each committed word, how many consecutive decodes have shown it (2 or more).
    mutating func agree(on hypothesis: [TimedWord]) -> (committed: [TimedWord], pending: [TimedWord], agreements: [Int]) {
        let previousCounts = Array(lastAgreements.suffix(previous.count))
        var agreements: [Int] = []
        var committed: [TimedWord] = []
        var h = 0, p = 0
        while h < hypothesis.count, p < previous.count {
            if Self.same(hypothesis[h], previous[p]) {
                agreements.append(previousCounts[p] + 1)
                committed.append(hypothesis[h])
                h += 1
                p += 1
            } else if let (taken, replaced) = substitution(in: hypothesis, at: h, previousAt: p) {
                // The surer spelling (its least likely word the likelier), the later one when they tie.
                let later = Array(hypothesis[h..<(h + taken)]), earlier = Array(previous[p..<(p + replaced)])
                let surer = Self.leastConfidence(earlier) > Self.leastConfidence(later) ? earlier : later
                agreements += [Int](repeating: Self.settledAgreements, count: surer.count)
                committed += surer
                h += taken
                p += replaced
            } else {
                break
            }
        }
        let pending = Array(hypothesis[h...])
        lastAgreements = agreements + [Int](repeating: 1, count: pending.count)
        previous = pending
        return (committed, pending, agreements)
    }

    /// Where `hypothesis` from `h` and `previous` from `p` disagree: the shortest substitution of one or two words
    /// by one or two in the same place (`samePlaceSubstitutions`) that `substitutionContext` agreeing words follow
    /// (`agree`), as (words of `hypothesis`, words of `previous`); nil when there is none.
    private func substitution(in hypothesis: [TimedWord], at h: Int, previousAt p: Int) -> (Int, Int)? {
        guard let context = substitutionContext else { return nil }
        return samePlaceSubstitutions(in: hypothesis, at: h, previousAt: p).first {
            agree(hypothesis, from: h + $0.taken, previousFrom: p + $0.replaced, context: context, substitutionsLeft: 1)
        }
    }

    /// The substitutions of one or two words of `hypothesis` from `h` by one or two of `previous` from `p` whose
    /// starts and ends lie within `substitutionSlackSeconds`, shortest first.
    private func samePlaceSubstitutions(in hypothesis: [TimedWord], at h: Int, previousAt p: Int) -> [(taken: Int, replaced: Int)] {
        var found: [(taken: Int, replaced: Int)] = []
        for span in 2...4 {
            for taken in 1...2 {
                let replaced = span - taken
                guard (1...2).contains(replaced), h + taken <= hypothesis.count, p + replaced <= previous.count else { continue }
                if abs(hypothesis[h].start - previous[p].start) <= Self.substitutionSlackSeconds
                    && abs(hypothesis[h + taken - 1].end - previous[p + replaced - 1].end) <= Self.substitutionSlackSeconds
                {
                    found.append((taken, replaced))
                }
            }
        }
        return found
    }

    /// Whether `context` words that both decodes say alike follow, from `h` in `hypothesis` and `p` in `previous`.
    /// Up to `substitutionsLeft` more same-place substitutions may break them after at least one agreeing word; the
    /// count starts again after each. Two close substitutions ("You had your dog suit and greasy" / "He had your
    /// duck suit and greasy wash") otherwise never settle: each has only two agreeing words before the next.
    private func agree(_ hypothesis: [TimedWord], from h: Int, previousFrom p: Int, context: Int, substitutionsLeft: Int) -> Bool {
        for run in 0..<context {
            let (nextH, nextP) = (h + run, p + run)
            if nextH < hypothesis.count, nextP < previous.count, hypothesis[nextH].spoken == previous[nextP].spoken { continue }
            guard substitutionsLeft > 0, run >= 1 else { return false }
            return samePlaceSubstitutions(in: hypothesis, at: nextH, previousAt: nextP).contains {
                agree(hypothesis, from: nextH + $0.taken, previousFrom: nextP + $0.replaced, context: context,
                      substitutionsLeft: substitutionsLeft - 1)
            }
        }
        return true
    }

    /// Makes `words`, the end of the last hypothesis, the pending words again (agreed words the caller chose not to
    /// commit yet), so the next hypothesis is compared with them from the start. They keep their counts.
    mutating func holdBack(_ words: [TimedWord]) { previous = words }

    /// Forgets the previous hypothesis (after a flush, or when the audio it described was dropped).
    mutating func reset() {
        previous = []
        lastAgreements = []
    }

    private static func leastConfidence(_ words: [TimedWord]) -> Double {
        words.map(\.confidence).min() ?? 0
    }

    static func same(_ a: TimedWord, _ b: TimedWord) -> Bool {
        a.text.trimmingCharacters(in: .whitespaces) == b.text.trimmingCharacters(in: .whitespaces)
    }
}
