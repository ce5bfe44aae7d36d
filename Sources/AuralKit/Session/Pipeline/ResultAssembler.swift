import Foundation

/// Turns the streaming policy's updates into `SpeechTranscriber.Result`s as Apple's analyzer reports them: each
/// final result carries newly committed words and moves `resultsFinalizationTime` forward; a volatile result
/// carries every uncommitted word and replaces the previous volatile one (an empty one withdraws it).
struct ResultAssembler: Sendable {
    let reportingOptions: Set<SpeechTranscriber.ReportingOption>
    let attributeOptions: Set<SpeechTranscriber.ResultAttributeOption>
    let etiquette: Bool
    /// Time up to which results are final; only moves forward.
    private(set) var finalizedThrough = CMTime.zero
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
        var results: [SpeechTranscriber.Result] = []
        if let first = update.committed.first, let last = update.committed.last {
            let start = CMTime(seconds: first.start, preferredTimescale: 16_000)
            let end = max(CMTime(seconds: last.end, preferredTimescale: 16_000), start)
            finalizedThrough = max(finalizedThrough, end)
            let text = TranscriptText.attributed(update.committed, options: attributeOptions, etiquette: etiquette)
            var alternatives = [text]
            if reportingOptions.contains(.alternativeTranscriptions) {
                let plain = String(text.characters).trimmingCharacters(in: .whitespaces)
                for other in update.alternatives.dropFirst() where other.trimmingCharacters(in: .whitespaces) != plain {
                    alternatives.append(AttributedString(other.trimmingCharacters(in: .whitespaces)))
                }
            }
            results.append(SpeechTranscriber.Result(
                alternatives: alternatives, range: CMTimeRange(start: start, end: end),
                resultsFinalizationTime: finalizedThrough))
            showingVolatile = false
        }
        guard reportingOptions.contains(.volatileResults) else { return results }
        if let first = update.volatile.first, let last = update.volatile.last {
            let start = CMTime(seconds: first.start, preferredTimescale: 16_000)
            var end = max(CMTime(seconds: last.end, preferredTimescale: 16_000), start)
            // A volatile result always ends after the finalization time, so `isFinal` is false.
            if end <= finalizedThrough { end = finalizedThrough + CMTime(value: 1, timescale: 16_000) }
            let text = TranscriptText.attributed(update.volatile, options: attributeOptions, etiquette: etiquette)
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
}

/// Yields each update's results to a session's stream; used only from the inference thread, one update at a time.
final class ResultDelivery: @unchecked Sendable {
    private var assembler: ResultAssembler
    private let continuation: AsyncThrowingStream<SpeechTranscriber.Result, Error>.Continuation

    init(assembler: ResultAssembler, continuation: AsyncThrowingStream<SpeechTranscriber.Result, Error>.Continuation) {
        self.assembler = assembler
        self.continuation = continuation
    }

    func deliver(_ update: StreamingTranscription.Update) {
        for result in assembler.results(for: update) { continuation.yield(result) }
    }
}
