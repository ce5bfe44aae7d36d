import Foundation

/// Temperature fallback: decodes at each temperature of the schedule until the result is neither repetitive nor
/// improbable (faster-whisper `generate_with_fallback`); when every one fails, keeps the most probable
/// non-repetitive one.
enum Fallback {
    /// One window's accepted decode with the numbers the fallback judged it by.
    struct Outcome {
        var result: DecodeResult
        var avgLogprob: Double
        var temperature: Double
        var compressionRatio: Double
    }

    /// Once `isCancelled` answers true, the decode under way stops at its next step and its incomplete outcome is
    /// returned without trying other temperatures.
    static func decode(
        search: Search, prompt: [Int], options: DecodingOptions, draft: [Int] = [], generator: inout SplitMix64,
        isCancelled: () -> Bool = { false }
    ) -> Outcome {
        var all: [Outcome] = []
        var belowCompressionThreshold: [Outcome] = []
        for temperature in options.temperatures {
            let result = search.decode(
                prompt: prompt, temperature: temperature, beamSize: options.beamSize, bestOf: options.bestOf,
                patience: options.patience, lengthPenalty: options.lengthPenalty, maxNewTokens: options.maxNewTokens,
                draft: draft, generator: &generator, isCancelled: isCancelled)
            let text = search.model.tokenizer.decode(result.tokens).trimmingCharacters(in: .whitespacesAndNewlines)
            let candidate = Outcome(
                result: result, avgLogprob: result.avgLogprob, temperature: temperature,
                compressionRatio: compressionRatio(text))
            all.append(candidate)
            if isCancelled() { return candidate }
            var needsFallback = false
            if let threshold = options.compressionRatioThreshold {
                if candidate.compressionRatio > threshold { needsFallback = true } else { belowCompressionThreshold.append(candidate) }
            }
            if let threshold = options.logProbThreshold, candidate.avgLogprob < threshold { needsFallback = true }
            if let noSpeech = options.noSpeechThreshold, let logProb = options.logProbThreshold,
                result.noSpeechProb > noSpeech, candidate.avgLogprob < logProb {
                needsFallback = false
            }
            if !needsFallback { return candidate }
        }
        var best = (belowCompressionThreshold.isEmpty ? all : belowCompressionThreshold).max { $0.avgLogprob < $1.avgLogprob }!
        best.temperature = options.temperatures.last!
        return best
    }
}
