import CoreMedia
import Foundation

/// Turns the streaming policy's updates into `SpeechTranscriber.Result`s as Apple's transcriber reports them: a final
/// result covers a phrase, and volatile results show the phrase growing in between.
///
/// Committed words (those the policy will never change) join the open phrase. The phrase becomes final through its
/// last word that ends a sentence, at a pause (`Update.endsPhrase`), at a flush, or once it is `maximumPhraseSeconds`
/// long; its result moves `resultsFinalizationTime` forward. A volatile result carries the open phrase and the
/// policy's volatile words after it, and replaces the previous volatile one; when nothing is left to show, an empty
/// volatile result withdraws the last one (also right after a final, so that no word the final did not keep stays).
struct ResultAssembler: Sendable {
    let reportingOptions: Set<SpeechTranscriber.ReportingOption>
    let attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>
    let etiquette: Bool
    /// A phrase this long (first word's start to last word's end) becomes final at its last committed word.
    static let maximumPhraseSeconds = 12.0
    /// Time up to which results are final; only moves forward.
    private(set) var finalizedThrough = CMTime.zero
    /// Committed words not yet delivered in a final result.
    private(set) var phrase: [TimedWord] = []
    private var showingVolatile = false

    init(
        reportingOptions: Set<SpeechTranscriber.ReportingOption>, attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>,
        etiquette: Bool
    ) {
        self.reportingOptions = reportingOptions
        self.attributeOptions = attributeOptions
        self.etiquette = etiquette
    }

    /// The results one update produces, final first.
    mutating func results(for update: StreamingTranscription.Update) -> [SpeechTranscriber.Result] {
        phrase += update.committed
        var results: [SpeechTranscriber.Result] = []
        let count = Self.finalCount(of: phrase, ending: update.isFinal || update.endsPhrase)
        if count > 0 {
            let words = Array(phrase[..<count])
            phrase.removeFirst(count)
            let alternatives = words == update.committed ? update.alternatives : []
            results.append(finalResult(words, alternatives: alternatives))
        }
        guard reportingOptions.contains(.volatileResults) else { return results }
        let volatile = phrase + update.volatile
        if let first = volatile.first, let last = volatile.last {
            let start = CMTime(seconds: first.start, preferredTimescale: 16_000)
            var end = max(CMTime(seconds: last.end, preferredTimescale: 16_000), start)
            // A volatile result always ends after the finalization time, so `isFinal` is false.
            if end <= finalizedThrough { end = finalizedThrough + CMTime(value: 1, timescale: 16_000) }
            let text = TranscriptText.attributed(volatile, options: attributeOptions, etiquette: etiquette)
            results.append(SpeechTranscriber.Result(
                alternatives: [text], range: CMTimeRange(start: min(start, end), end: end),
                resultsFinalizationTime: finalizedThrough))
            showingVolatile = true
        } else if showingVolatile {
            let end = finalizedThrough + CMTime(value: 1, timescale: 16_000)
            results.append(SpeechTranscriber.Result(
                alternatives: [AttributedString("")], range: CMTimeRange(start: finalizedThrough, end: end),
                resultsFinalizationTime: finalizedThrough))
            showingVolatile = false
        }
        return results
    }

    /// How many words of `phrase` become final now: all at the end of a phrase (`ending`) or when it has grown
    /// `maximumPhraseSeconds` long; else those through its last word that ends a sentence; else none.
    static func finalCount(of phrase: [TimedWord], ending: Bool) -> Int {
        guard let first = phrase.first, let last = phrase.last else { return 0 }
        if ending || last.end - first.start >= maximumPhraseSeconds { return phrase.count }
        guard let sentenceEnd = phrase.lastIndex(where: { $0.text.last.map(WordPunctuation.endsSentence) ?? false }) else { return 0 }
        return sentenceEnd + 1
    }

    /// A final result of `words` (with the beam's other readings of them, when asked for and known), which moves the
    /// finalization time to their end.
    private mutating func finalResult(_ words: [TimedWord], alternatives others: [String]) -> SpeechTranscriber.Result {
        let start = CMTime(seconds: words[0].start, preferredTimescale: 16_000)
        let end = max(CMTime(seconds: words[words.count - 1].end, preferredTimescale: 16_000), start, finalizedThrough)
        finalizedThrough = end
        let text = TranscriptText.attributed(words, options: attributeOptions, etiquette: etiquette)
        var alternatives = [text]
        if reportingOptions.contains(.alternativeTranscriptions) {
            let plain = String(text.characters).trimmingCharacters(in: .whitespaces)
            for other in others.dropFirst() where other.trimmingCharacters(in: .whitespaces) != plain {
                alternatives.append(AttributedString(other.trimmingCharacters(in: .whitespaces)))
            }
        }
        return SpeechTranscriber.Result(
            alternatives: alternatives, range: CMTimeRange(start: min(start, end), end: end), resultsFinalizationTime: finalizedThrough)
    }
}

/// Hands each update's results to a module; used only from the inference thread, one update at a time.
final class ResultDelivery: @unchecked Sendable {
    private var assembler: ResultAssembler
    private let sink: @Sendable (SpeechTranscriber.Result) -> Void

    init(assembler: ResultAssembler, sink: @escaping @Sendable (SpeechTranscriber.Result) -> Void) {
        self.assembler = assembler
        self.sink = sink
    }

    /// Delivers the update's results, final first; returns the finalization time after them.
    @discardableResult
    func deliver(_ update: StreamingTranscription.Update) -> CMTime {
        for result in assembler.results(for: update) { sink(result) }
        return assembler.finalizedThrough
    }
}
