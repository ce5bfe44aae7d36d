import Foundation

/// Which words of a live decode become final: pure rules over the words each decode found after the committed text
/// (hypotheses), with no model, audio or thread, so that each rule is tested on recorded hypotheses.
///
/// A decode's words first go through `LocalAgreement` (two consecutive decodes agree), or, with
/// `.alignedCommit(margin:)`, through the alignment's times; then the rules below hold some agreed words back, each a
/// small function:
/// - `heldNearTheEnd`: words ending within `holdbackSeconds` of the audio's end;
/// - `isUnlikelyAtEnd`: unlikely words that end the decode (Whisper's inventions on a breath);
/// - `needsThirdAgreement`: an unlikely word, or a less unlikely one the earlier decode barely heard;
/// - `splitTrailingPunctuation`: punctuation that ends the decode stays volatile, its word commits;
/// - `shownCount`: volatile words from the first below `unsureWordMinimumConfidence` on, and those at the end below
///   `volatileWordMinimumConfidence` or cut by the audio's end, are not shown.
struct CommitPolicy: Sendable {
    /// The thresholds (`StreamingTranscription.Configuration`, one place for each setting).
    let configuration: StreamingTranscription.Configuration
    private var agreement: LocalAgreement
    /// Session audio (seconds) received when the last decode that went through `decide` started.
    private var lastDecodeAudioTime = 0.0

    init(configuration: StreamingTranscription.Configuration) {
        self.configuration = configuration
        agreement = LocalAgreement(substitutionContext: configuration.substitutionContextWords)
    }

    /// What a decode decided: the words that become final, the volatile words after them, and how many of those are
    /// shown.
    struct Decision: Equatable {
        var committed: [TimedWord]
        var pending: [TimedWord]
        var shown: Int
    }

    /// The words the last decision left volatile, which the next decode must repeat.
    var pending: [TimedWord] { agreement.previous }

    /// Forgets the pending words (a flush, or audio that was dropped).
    mutating func reset() { agreement.reset() }

    /// Applies every rule to a decode's words (`hypothesis`), heard over session audio up to `audioTime` seconds.
    mutating func decide(on hypothesis: [TimedWord], audioTime: Double) -> Decision {
        let earlier = agreement.previous
        let earlierAudioTime = lastDecodeAudioTime
        lastDecodeAudioTime = audioTime
        let agreed = agreement.agree(on: hypothesis)
        var (committed, pending) = (agreed.committed, agreed.pending)
        if case .alignedCommit(let margin) = configuration.policy {
            let settled = Self.settledByAlignment(hypothesis, audioTime: audioTime, margin: margin)
            if settled > committed.count {
                (committed, pending) = (Array(hypothesis[..<settled]), Array(hypothesis[settled...]))
                agreement.holdBack(pending)
            }
        }
        let keep = min(
            heldNearTheEnd(committed, audioTime: audioTime),
            Self.countWithoutEnd(of: committed + pending, where: isUnlikelyAtEnd),
            needsThirdAgreement(committed, agreements: agreed.agreements, earlier: earlier, earlierAudioTime: earlierAudioTime))
        if keep < committed.count {
            pending = Array(committed[keep...]) + pending
            committed = Array(committed[..<keep])
            agreement.holdBack(pending)
        }
        if pending.isEmpty, let last = committed.last, let split = Self.splitTrailingPunctuation(last) {
            committed[committed.count - 1] = split.word
            pending = [split.punctuation]
            agreement.holdBack(pending)
        }
        return Decision(committed: committed, pending: pending, shown: shownCount(pending, audioTime: audioTime))
    }

    // MARK: - The rules

    /// `.alignedCommit(margin:)`: how many words the alignment places at least `margin` seconds before the audio's
    /// end, up to the decode's last word (which always waits).
    static func settledByAlignment(_ hypothesis: [TimedWord], audioTime: Double, margin: Double) -> Int {
        hypothesis.dropLast().prefix { $0.end <= audioTime - margin }.count
    }

    /// How many agreed words end before `holdbackSeconds` from the audio's end: a word heard without right context
    /// is the likeliest to change.
    func heldNearTheEnd(_ committed: [TimedWord], audioTime: Double) -> Int {
        let horizon = audioTime - configuration.holdbackSeconds
        return committed.firstIndex { $0.end > horizon } ?? committed.count
    }

    /// How many agreed words may commit before the first that needs a third agreeing decode: one under
    /// `thirdAgreementMinimumConfidence`, or under `barelyHeardMinimumConfidence` when the earlier of its two decodes
    /// heard it end less than `barelyHeardSeconds` before that decode's audio ended.
    func needsThirdAgreement(
        _ committed: [TimedWord], agreements: [Int], earlier: [TimedWord], earlierAudioTime: Double
    ) -> Int {
        committed.indices.first { index in
            guard index < agreements.count, agreements[index] < 3 else { return false }
            let word = committed[index]
            let barelyHeard = word.confidence < configuration.barelyHeardMinimumConfidence && index < earlier.count
                && earlier[index].end > earlierAudioTime - configuration.barelyHeardSeconds
            return word.confidence < configuration.thirdAgreementMinimumConfidence || barelyHeard
        } ?? committed.count
    }

    /// How many volatile words are shown: those before the first word below `unsureWordMinimumConfidence`, but an end
    /// below `volatileWordMinimumConfidence` or ending within `cutWordSeconds` of the audio's end at `audioTime` (a
    /// word cut there).
    func shownCount(_ pending: [TimedWord], audioTime: Double) -> Int {
        let beforeUnsure = pending.prefix { Self.isPunctuation($0) || $0.confidence >= configuration.unsureWordMinimumConfidence }
        return Self.countWithoutEnd(of: Array(beforeUnsure)) { word in
            word.confidence < configuration.volatileWordMinimumConfidence
                || (!Self.isPunctuation(word) && word.end > audioTime - configuration.cutWordSeconds)
        }
    }

    /// Whether a word at a decode's end is below `trailingWordMinimumConfidence`, or placeless (with less than
    /// `placelessWordSeconds`) and below `placelessWordMinimumConfidence`. Punctuation on its own (what a decode
    /// adds after a committed word) is never unlikely: it is no invented word.
    func isUnlikelyAtEnd(_ word: TimedWord) -> Bool {
        if Self.isPunctuation(word) { return false }
        let placeless = word.end - word.start < configuration.placelessWordSeconds
        return word.confidence < (placeless ? configuration.placelessWordMinimumConfidence : configuration.trailingWordMinimumConfidence)
    }

    /// Whether a decode jumped over speech the last update showed: its first new word starts more than
    /// `skippedSpeechSeconds` after the first shown word, and at least two shown words with letters start before it.
    /// Whisper sometimes leaves out a sentence and goes on with the next: on continuous speech a decode at a file's
    /// end wrote "In 1813." where the update before had shown "He had your … all year. In", and the flush lost the
    /// sentence.
    func skipsShownWords(_ decoded: [TimedWord], shown: [TimedWord]) -> Bool {
        guard let firstDecoded = decoded.first else { return false }
        let skipped = shown.prefix { $0.start < firstDecoded.start - configuration.skippedSpeechSeconds }
        return skipped.filter { $0.text.contains(where: \.isLetter) }.count >= 2
    }

    /// What a flush commits when its decode skipped shown words (`skipsShownWords`): the shown words that start
    /// before the decode's first word (by more than a word's onset, 0.1 s), then the decode's words.
    static func mergingSkippedWords(_ decoded: [TimedWord], shown: [TimedWord]) -> [TimedWord] {
        guard let firstDecoded = decoded.first else { return shown }
        return shown.prefix { $0.start < firstDecoded.start - 0.1 } + decoded
    }

    /// `words` but the unlikely run at their end (`isUnlikelyAtEnd`).
    func withoutUnlikelyEnd(_ words: [TimedWord]) -> [TimedWord] {
        Array(words.prefix(Self.countWithoutEnd(of: words, where: isUnlikelyAtEnd)))
    }

    // MARK: - Words

    /// `word` without the punctuation that ends it, and that punctuation as a word of its own at the word's end;
    /// nil when nothing ends it or it is all punctuation.
    static func splitTrailingPunctuation(_ word: TimedWord) -> (word: TimedWord, punctuation: TimedWord)? {
        let marks = word.text.reversed().prefix(while: WordPunctuation.isMark).count
        guard marks > 0, word.text.dropLast(marks).contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        var bare = word
        bare.text = String(word.text.dropLast(marks))
        let punctuation = TimedWord(text: String(word.text.suffix(marks)), start: word.end, end: word.end, confidence: word.confidence)
        return (bare, punctuation)
    }

    /// The leading run of `words` that is punctuation only.
    static func punctuationOnly(_ words: [TimedWord]) -> [TimedWord] {
        Array(words.prefix(while: isPunctuation))
    }

    /// Whether `word` is punctuation alone (no space, no letter): what a decode adds after a committed word.
    static func isPunctuation(_ word: TimedWord) -> Bool {
        !word.text.isEmpty && word.text.allSatisfy(WordPunctuation.isMark)
    }

    /// How many of `words` remain once the run of words at their end that match `drop` is left out.
    static func countWithoutEnd(of words: [TimedWord], where drop: (TimedWord) -> Bool) -> Int {
        words.count - words.reversed().prefix(while: drop).count
    }
}
