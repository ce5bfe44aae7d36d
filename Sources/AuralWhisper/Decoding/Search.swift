import Foundation

/// The outcome of decoding one window once.
struct DecodeResult {
    /// Sampled tokens, without the prompt and without end-of-text.
    var tokens: [Int]
    /// Sum of the chosen tokens' log probabilities, end-of-text included.
    var sumLogprob: Double
    /// Probability of the no-speech token at the start-of-transcript position.
    var noSpeechProb: Double
    /// Temperature of this decode.
    var temperature: Double
    /// Every finished hypothesis's tokens, most probable first (`tokens` first); one for greedy decoding.
    var alternatives: [[Int]] = []

    /// sumLogprob / (tokens + 1), as faster-whisper and openai/whisper report it.
    var avgLogprob: Double { sumLogprob / Double(tokens.count + 1) }
}

/// Greedy, sampling and beam search over a window's `DecoderState`, after CTranslate2's `GreedySearch` and
/// `BeamSearch` (`src/decoding.cc`), which faster-whisper runs.
struct Search {
    let model: WhisperModel
    let state: DecoderState
    let filters: [any LogitFiltering]

    /// Decodes from `prompt` (previous text, start-of-transcript sequence, …). Beam search when `temperature` is 0
    /// and `beamSize` > 1; greedy at 0 with one beam; otherwise `bestOf` samples, the best by length-normalised score.
    /// `isCancelled` is asked before each step; once it answers true the decode stops there, and its result is
    /// incomplete (the caller discards it). Beam search at temperature 0 takes the longest start of `draft` that the
    /// prompt's pass finds likely (`acceptedDraft`) and searches on after it.
    func decode(
        prompt: [Int], temperature: Double, beamSize: Int, bestOf: Int, patience: Double, lengthPenalty: Double,
        maxNewTokens: Int?, draft: [Int] = [], generator: inout SplitMix64, isCancelled: () -> Bool = { false }
    ) -> DecodeResult {
        let eot = model.tokenizer.eot
        let sotIndex = prompt.lastIndex(of: model.tokenizer.sot) ?? 0
        let total = maxNewTokens.map { prompt.count + $0 } ?? model.textContext
        let maxLength = max(1, min(total / 2, total - (prompt.count - 1)))
        let start = prompt[prompt.count - 1]
        let sotIsStart = sotIndex == prompt.count - 1
        let checked = temperature == 0 && beamSize > 1 && !sotIsStart ? Array(draft.prefix(maxLength - 1)) : []
        let (promptNoSpeech, accepted) = promptPass(prompt, sotIndex: sotIndex, draft: checked)
        var noSpeechProb = promptNoSpeech

        if temperature == 0 && beamSize > 1 {
            return beamSearch(
                start: start, accepted: accepted, beamSize: beamSize, patience: patience, lengthPenalty: lengthPenalty,
                maxLength: maxLength, sotIsStart: sotIsStart, noSpeechProb: noSpeechProb, isCancelled: isCancelled)
        }
        let samples = temperature == 0 ? 1 : max(1, bestOf)
        // Independent sequences decoded as a batch; finished ones leave the batch.
        var live = Array(0..<samples)
        var tokens = [[Int]](repeating: [], count: samples)
        var sums = [Double](repeating: 0, count: samples)
        var last = [Int](repeating: start, count: samples)
        if samples > 1 { state.reorder([Int](repeating: 0, count: samples)) }
        let vocabulary = model.vocabularySize
        var logprobs = [Float](repeating: 0, count: vocabulary)
        for step in 0..<maxLength {
            if isCancelled() { break }
            let hidden = state.forward(live.map { [last[$0]] })
            let logits = state.logits(hidden, rows: Array(0..<live.count))
            if step == 0 && sotIsStart { noSpeechProb = noSpeechProbability(logits, row: 0) }
            defer { withExtendedLifetime(logits) {} }
            var stillLive: [Int] = []
            var keep: [Int] = []
            for (row, s) in live.enumerated() {
                let rowLogits = logits.pointer + row * vocabulary
                for filter in filters { filter.apply(rowLogits, vocabularySize: vocabulary, generated: tokens[s], step: step) }
                let token: Int = logprobs.withUnsafeMutableBufferPointer { lp in
                    Kernels.logSoftmax(rowLogits, count: vocabulary, into: lp.baseAddress!)
                    if temperature == 0 { return Search.argmax(lp.baseAddress!, count: vocabulary) }
                    return Search.sample(lp.baseAddress!, count: vocabulary, temperature: temperature, generator: &generator)
                }
                sums[s] += Double(logprobs[token])
                let finished = token == eot || step + 1 == maxLength
                if token != eot { tokens[s].append(token) }
                if !finished {
                    stillLive.append(s)
                    keep.append(row)
                    last[s] = token
                }
            }
            if stillLive.isEmpty { break }
            if keep.count != live.count { state.reorder(keep) }
            live = stillLive
        }
        func score(_ s: Int) -> Double { sums[s] / pow(Double(max(tokens[s].count, 1)), lengthPenalty) }
        let best = (0..<samples).max { score($0) < score($1) } ?? 0
        return DecodeResult(
            tokens: tokens[best], sumLogprob: sums[best], noSpeechProb: noSpeechProb, temperature: temperature,
            alternatives: [tokens[best]])
    }

    /// Resets the state and feeds it the prompt but its last token (the search's first input), and after it, with a
    /// `draft`, that token and the draft's tokens but the last. Returns the no-speech probability at the start of
    /// transcript (0 when that is the search's first input) and the draft's accepted start (`acceptedDraft`); the
    /// state then holds the tokens before the search's first input: the prompt's, and the accepted ones but the last.
    private func promptPass(
        _ prompt: [Int], sotIndex: Int, draft: [Int]
    ) -> (noSpeechProb: Double, accepted: (tokens: [Int], score: Double)) {
        state.reset()
        guard prompt.count > 1 else { return (0, ([], 0)) }
        // Only the start-of-transcript row's output is read (its no-speech probability), and the rows that predict
        // the draft's tokens.
        let readsStart = sotIndex < prompt.count - 1
        let draftRows = draft.indices.map { prompt.count - 1 + $0 }
        let fed = Array(prompt.dropLast()) + (draft.isEmpty ? [] : [prompt[prompt.count - 1]] + draft.dropLast())
        let outputRows = (readsStart ? [sotIndex] : []) + draftRows
        let hidden = state.forward([fed], outputRows: outputRows)
        guard !outputRows.isEmpty else { return (0, ([], 0)) }
        // One product with the vocabulary for every row read: its weights are read once.
        let logits = state.logits(hidden, rows: Array(outputRows.indices))
        let noSpeechProb = readsStart ? noSpeechProbability(logits, row: 0) : 0
        guard !draft.isEmpty else { return (noSpeechProb, ([], 0)) }
        let accepted = acceptedDraft(draft, logits: logits, firstRow: readsStart ? 1 : 0)
        state.truncate(to: prompt.count - 1 + accepted.tokens.count)
        return (noSpeechProb, accepted)
    }

    private func beamSearch(
        start: Int, accepted: (tokens: [Int], score: Double), beamSize: Int, patience: Double, lengthPenalty: Double,
        maxLength: Int, sotIsStart: Bool, noSpeechProb initialNoSpeech: Double, isCancelled: () -> Bool
    ) -> DecodeResult {
        let eot = model.tokenizer.eot
        let vocabulary = model.vocabularySize
        let candidatesPerStep = 2 * beamSize
        let maxCandidates = Int((Float(beamSize) * Float(patience)).rounded())
        var noSpeechProb = initialNoSpeech
        var beams: [(tokens: [Int], score: Double)] = [accepted]
        var finished: [(tokens: [Int], score: Double)] = []

        for step in accepted.tokens.count..<maxLength {
            if isCancelled() { break }
            let hidden = state.forward(beams.map { [$0.tokens.last ?? start] })
            let logits = state.logits(hidden, rows: Array(0..<beams.count))
            if step == 0 && sotIsStart { noSpeechProb = noSpeechProbability(logits, row: 0) }
            defer { withExtendedLifetime(logits) {} }
            // Top candidates over every beam's score + log probability: each beam's own on a pool thread, then merged
            // in beam order, which keeps ties in the order one pass over all beams would give them.
            var beamTops = [TopK](repeating: TopK(capacity: candidatesPerStep), count: beams.count)
            beamTops.withUnsafeMutableBufferPointer { tops in
                WorkerPool.current.run(parts: beams.count) { b in
                    let rowLogits = logits.pointer + b * vocabulary
                    for filter in filters {
                        filter.apply(rowLogits, vocabularySize: vocabulary, generated: beams[b].tokens, step: step)
                    }
                    let base = Float(beams[b].score)
                    for candidate in Kernels.logSoftmaxTop(rowLogits, count: vocabulary, k: candidatesPerStep) {
                        tops[b].insert(score: base + candidate.logprob, beam: b, token: candidate.index)
                    }
                }
            }
            var top = TopK(capacity: candidatesPerStep)
            for beamTop in beamTops {
                for candidate in beamTop.sorted { top.insert(score: candidate.score, beam: candidate.beam, token: candidate.token) }
            }
            let candidates = top.sorted
            let isLastStep = step + 1 == maxLength
            var next: [(source: Int, token: Int, score: Double)] = []
            var secondary = beamSize
            for k in 0..<min(beamSize, candidates.count) {
                var chosen = candidates[k]
                if chosen.token == eot || isLastStep {
                    var hypothesis = beams[chosen.beam].tokens
                    if chosen.token != eot { hypothesis.append(chosen.token) }
                    finished.append((hypothesis, Double(chosen.score)))
                    while secondary < candidates.count {
                        let candidate = candidates[secondary]
                        secondary += 1
                        if candidate.token != eot {
                            chosen = candidate
                            break
                        }
                    }
                }
                next.append((chosen.beam, chosen.token, Double(chosen.score)))
            }
            if isLastStep || finished.count >= maxCandidates || next.isEmpty { break }
            state.reorder(next.map(\.source))
            beams = next.map { (beams[$0.source].tokens + [$0.token], $0.score) }
        }
        if finished.isEmpty { finished = beams }
        func normalized(_ h: (tokens: [Int], score: Double)) -> Double {
            h.score / pow(Double(max(h.tokens.count, 1)), lengthPenalty)
        }
        let best = finished.max { normalized($0) < normalized($1) }!
        // The best first, then the others by the same score (a stable order for ties).
        let others = finished.enumerated()
            .filter { $0.element.tokens != best.tokens }
            .sorted { normalized($0.element) > normalized($1.element) || (normalized($0.element) == normalized($1.element) && $0.offset < $1.offset) }
            .map(\.element.tokens)
        return DecodeResult(
            tokens: best.tokens, sumLogprob: best.score, noSpeechProb: noSpeechProb, temperature: 0,
            alternatives: [best.tokens] + others)
    }

    /// The longest start of `draft` whose every token is its row's most likely one (after the filters) with a
    /// probability of at least `draftMinimumProbability`, and the sum of their log probabilities. Row `firstRow + i`
    /// of `logits` predicts `draft[i]`.
    private func acceptedDraft(_ draft: [Int], logits: Tensor, firstRow: Int) -> (tokens: [Int], score: Double) {
        let vocabulary = model.vocabularySize
        let minimum = Float(log(Search.draftMinimumProbability))
        var score = 0.0
        for (i, token) in draft.enumerated() {
            let row = logits.pointer + (firstRow + i) * vocabulary
            for filter in filters { filter.apply(row, vocabularySize: vocabulary, generated: Array(draft[..<i]), step: i) }
            guard let top = Kernels.logSoftmaxTop(row, count: vocabulary, k: 1).first,
                  top.index == token, top.logprob >= minimum else {
                return (Array(draft[..<i]), score)
            }
            score += Double(top.logprob)
        }
        return (draft, score)
    }

    /// The least probability of a draft token taken without a step. Live decodes' drafts stop mostly at their first
    /// uncommitted word, the one two decodes disputed: at 0.5, 35 % of the drafts' tokens were taken; at 0.3, 50 %,
    /// with the same or better text and flicker; taking every most likely token made phrase finals late
    /// (docs/streaming.md).
    static let draftMinimumProbability = 0.3

    /// softmax(raw logits)[no-speech token] of one row of `logits`.
    private func noSpeechProbability(_ logits: Tensor, row: Int) -> Double {
        let v = model.vocabularySize
        var lp = [Float](repeating: 0, count: v)
        withExtendedLifetime(logits) {
            lp.withUnsafeMutableBufferPointer { Kernels.logSoftmax(logits.pointer + row * v, count: v, into: $0.baseAddress!) }
        }
        return Double(exp(lp[model.tokenizer.noSpeech]))
    }

    static func argmax(_ x: UnsafePointer<Float>, count: Int) -> Int {
        var best = 0
        var bestValue = x[0]
        for i in 1..<count where x[i] > bestValue {
            best = i
            bestValue = x[i]
        }
        return best
    }

    /// Draws from softmax(logprobs / temperature).
    static func sample(_ logprobs: UnsafePointer<Float>, count: Int, temperature: Double, generator: inout SplitMix64) -> Int {
        var maxValue = -Float.infinity
        for i in 0..<count where logprobs[i] > maxValue { maxValue = logprobs[i] }
        var weights = [Double](repeating: 0, count: count)
        var total = 0.0
        for i in 0..<count where logprobs[i] > -.infinity {
            let w = exp(Double(logprobs[i] - maxValue) / temperature)
            weights[i] = w
            total += w
        }
        var r = Double.random(in: 0..<1, using: &generator) * total
        for i in 0..<count where weights[i] > 0 {
            r -= weights[i]
            if r < 0 { return i }
        }
        return argmax(logprobs, count: count)
    }
}

/// The k best (score, beam, token) triples seen, kept sorted best first.
struct TopK {
    let capacity: Int
    private(set) var sorted: [(score: Float, beam: Int, token: Int)] = []

    init(capacity: Int) { self.capacity = capacity }

    mutating func insert(score: Float, beam: Int, token: Int) {
        if sorted.count == capacity, let worst = sorted.last, score <= worst.score { return }
        var i = sorted.count
        while i > 0 && sorted[i - 1].score < score { i -= 1 }
        sorted.insert((score, beam, token), at: i)
        if sorted.count > capacity { sorted.removeLast() }
    }
}
