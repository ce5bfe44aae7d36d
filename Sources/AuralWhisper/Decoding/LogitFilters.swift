import Foundation

/// One rule that forbids tokens at a decoding step by setting their logits to −∞.
protocol LogitFiltering: Sendable {
    /// Filters one beam's logits. `step` is the index of the token being chosen (0 for the first sampled token);
    /// `generated` holds the tokens chosen so far on this beam.
    func apply(_ logits: UnsafeMutablePointer<Float>, vocabularySize: Int, generated: [Int], step: Int)
}

/// Forbids a fixed set of tokens at every step (non-speech symbols and the special tokens).
/// Follows `openai/whisper:whisper/decoding.py SuppressTokens` and CTranslate2's `SuppressTokens`.
struct SuppressTokens: LogitFiltering {
    let tokens: [Int]

    func apply(_ logits: UnsafeMutablePointer<Float>, vocabularySize: Int, generated: [Int], step: Int) {
        for t in tokens where t >= 0 && t < vocabularySize { logits[t] = -.infinity }
    }
}

/// Forbids a blank (" ") or end-of-text first token.
/// Follows `openai/whisper:whisper/decoding.py SuppressBlank` and CTranslate2's `SuppressTokensBegin`.
struct SuppressBlank: LogitFiltering {
    let tokens: [Int]

    func apply(_ logits: UnsafeMutablePointer<Float>, vocabularySize: Int, generated: [Int], step: Int) {
        guard step == 0 else { return }
        for t in tokens where t >= 0 && t < vocabularySize { logits[t] = -.infinity }
    }
}

/// Whisper's timestamp grammar: the first token is a timestamp no later than `maxInitialTimestamp`; timestamps come
/// in pairs except before end-of-text; they never decrease; and a timestamp is forced when the timestamps together
/// are likelier than any single text token.
/// Follows `openai/whisper:whisper/decoding.py ApplyTimestampRules` as CTranslate2 implements it
/// (`src/models/whisper.cc`).
struct TimestampRules: LogitFiltering {
    let endOfText: Int
    let noTimestamps: Int
    let timestampBegin: Int
    /// Index (in 20 ms steps) of the latest allowed first timestamp.
    let maxInitialTimestampIndex: Int

    func apply(_ logits: UnsafeMutablePointer<Float>, vocabularySize: Int, generated: [Int], step: Int) {
        func forbid(_ range: Range<Int>) {
            for t in range.clamped(to: 0..<vocabularySize) { logits[t] = -.infinity }
        }
        forbid(noTimestamps..<(noTimestamps + 1))
        var checkTimestampMass = false
        if step == 0 {
            forbid(0..<timestampBegin)
            forbid((timestampBegin + maxInitialTimestampIndex + 1)..<vocabularySize)
        } else {
            let last = generated[step - 1]
            if last >= timestampBegin {
                let penultimate = step > 1 ? generated[step - 2] : last
                if penultimate >= timestampBegin {
                    forbid(timestampBegin..<vocabularySize)
                } else {
                    forbid(0..<endOfText)
                    forbid(timestampBegin..<last)
                    checkTimestampMass = true
                }
            } else {
                checkTimestampMass = true
                if let lastTimestamp = generated.last(where: { $0 >= timestampBegin }) {
                    forbid(timestampBegin..<(lastTimestamp + 1))
                }
            }
        }
        guard checkTimestampMass else { return }
        var maxText = -Float.infinity
        for t in 0..<timestampBegin where logits[t] > maxText { maxText = logits[t] }
        var maxTimestamp = -Float.infinity
        for t in timestampBegin..<vocabularySize where logits[t] > maxTimestamp { maxTimestamp = logits[t] }
        guard maxTimestamp > -.infinity else { return }
        var sum: Double = 0
        for t in timestampBegin..<vocabularySize { sum += Double(expf(logits[t] - maxTimestamp)) }
        let timestampMass = Double(maxTimestamp) + log(sum)
        if timestampMass > Double(maxText) { forbid(0..<timestampBegin) }
    }
}

/// The filters a set of decoding options asks for, in the order faster-whisper applies them.
enum LogitFilterSet {
    static func make(options: DecodingOptions, model: WhisperModel) -> [any LogitFiltering] {
        let tokenizer = model.tokenizer
        var filters: [any LogitFiltering] = []
        let specials = [
            tokenizer.transcribe, tokenizer.translate, tokenizer.sot, tokenizer.startOfPrev, tokenizer.startOfLM,
            tokenizer.noSpeech,
        ]
        let suppress = options.suppressTokens.flatMap { $0 == -1 ? model.suppressTokens : [$0] }
            + (options.suppressTokens.contains(-1) ? [] : specials)
        if !suppress.isEmpty { filters.append(SuppressTokens(tokens: suppress)) }
        if options.suppressBlank { filters.append(SuppressBlank(tokens: model.suppressTokensAtBegin)) }
        if !options.withoutTimestamps {
            filters.append(TimestampRules(
                endOfText: tokenizer.eot, noTimestamps: tokenizer.noTimestamps, timestampBegin: tokenizer.timestampBegin,
                maxInitialTimestampIndex: Int((options.maxInitialTimestamp / WhisperTime.secondsPerPosition).rounded())))
        }
        return filters
    }
}
