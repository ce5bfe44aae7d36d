import Foundation
import TestSupport
import Testing

@testable import AuralWhisper

/// The pure steps of word alignment, with expectations from CTranslate2's rules (`negative_dtw`, `MedianFilter`) and
/// faster-whisper 1.2.1's own `merge_punctuations`, `add_word_timestamps` and `find_alignment` run in Python.
@Suite("Word alignment", .heavyWork)
struct WordAlignerTests {
    // MARK: - Dynamic time warping

    private func path(_ rows: [[Float]]) -> [[Int]] {
        WordAligner.negativeDTW(rows.flatMap { $0 }, rows: rows.count, cols: rows[0].count).map { [$0.row, $0.col] }
    }

    @Test("DTW follows the high values from the first cell to the last")
    func dtwFollowsPeaks() {
        let matrix: [[Float]] = [
            [0.9, 0.8, 0.1, 0.0, 0.0],
            [0.0, 0.1, 0.9, 0.2, 0.0],
            [0.0, 0.0, 0.1, 0.3, 0.9],
        ]
        #expect(path(matrix) == [[0, 0], [0, 1], [1, 1], [1, 2], [1, 3], [2, 3], [2, 4]])
    }

    @Test("DTW breaks ties as CTranslate2: diagonal only when strictly cheapest, then up, else left")
    func dtwTieBreaking() {
        // Two paths cost −4 here; CTranslate2 takes the one through (1, 0) and (2, 2).
        #expect(path([[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]]) == [[0, 0], [1, 0], [1, 1], [1, 2], [2, 2], [2, 3]])
        #expect(path([[0, 0, 0], [0, 0, 0]]) == [[0, 0], [1, 0], [1, 1], [1, 2]])
        #expect(path([[0, 0], [0, 0], [0, 0]]) == [[0, 0], [1, 0], [2, 0], [2, 1]])
        #expect(path([[1, 0], [1, 0], [0, 1]]) == [[0, 0], [1, 0], [2, 0], [2, 1]])
    }

    @Test("DTW of one cell, one row and one column")
    func dtwDegenerate() {
        #expect(path([[0.5]]) == [[0, 0]])
        #expect(path([[1, 2, 3]]) == [[0, 0], [0, 1], [0, 2]])
        #expect(path([[1], [2], [3]]) == [[0, 0], [1, 0], [2, 0]])
        #expect(WordAligner.negativeDTW([], rows: 0, cols: 0).isEmpty)
    }

    // MARK: - Median filter

    @Test("median filter of width 7 mirrors the edges without repeating them")
    func medianReflects() {
        #expect(WordAligner.medianFilter([1, 9, 2, 8, 3, 7, 4, 6, 5], width: 7) == [8, 3, 7, 4, 6, 5, 6, 5, 6])
        // Shorter than the window: indices mirror back and forth ([2, 4, 1, 5, 1, 4, 2] around the first value).
        #expect(WordAligner.medianFilter([5, 1, 4, 2], width: 7) == [2, 4, 2, 4])
        #expect(WordAligner.medianFilter([0, 10, 0, 0, 10, 0], width: 3) == [10, 0, 0, 0, 0, 10])
    }

    @Test("median filter passes up to width / 2 values through unchanged")
    func medianShortInput() {
        #expect(WordAligner.medianFilter([3, 1, 2], width: 7) == [3, 1, 2])
        #expect(WordAligner.medianFilter([4], width: 7) == [4])
        #expect(WordAligner.medianFilter([], width: 7) == [])
    }

    // MARK: - Column normalisation

    @Test("columns are normalised over the rows with the biased variance and no epsilon")
    func normalizesColumns() {
        var block: [Float] = [1, 10, 2, 10, 3, 10, 6, 10]  // 4 rows × 2 columns; the second is constant
        var scratch = [Float](repeating: 0, count: 4)
        block.withUnsafeMutableBufferPointer { b in
            scratch.withUnsafeMutableBufferPointer { s in
                WordAligner.normalizeColumns(b.baseAddress!, rows: 4, cols: 2, scratch: s.baseAddress!)
            }
        }
        // mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5
        let expected: [Float] = [-2, -1, 0, 3].map { $0 / Float(3.5).squareRoot() }
        for (r, value) in expected.enumerated() { #expect(abs(block[r * 2] - value) < 1e-6) }
        // A constant column divides 0 by 0, as CTranslate2 does.
        #expect(block[1].isNaN)
    }

    // MARK: - Token probabilities

    /// The maximum as a running comparison finds it, the way `textProbability` did before it took `Kernels.maximum`.
    static func runningMaximum(_ values: UnsafePointer<Float>, count: Int) -> Float {
        var result = -Float.infinity
        for i in 0..<count where values[i] > result { result = values[i] }
        return result
    }

    @Test("the largest logit, eight lanes at a time, is the running maximum's value: NaN skipped, −∞ when none")
    func largestLogit() {
        var generator = SplitMix64(seed: 3)
        var rows: [[Float]] = [[], [.nan], [-.infinity], [.nan, 2, .nan], [-0.0, 0, -0.0], Array(repeating: .nan, count: 40)]
        for count in [1, 15, 16, 17, 33, 51_864] {
            var row = (0..<count).map { _ in Float(Int(generator.next() % 200_001) - 100_000) / 997 }
            rows.append(row)
            row[count / 2] = .nan
            row[count - 1] = .infinity
            rows.append(row)
        }
        for row in rows {
            row.withUnsafeBufferPointer { values in
                let fast = values.baseAddress.map { Kernels.maximum($0, count: row.count) } ?? -.infinity
                let plain = values.baseAddress.map { Self.runningMaximum($0, count: row.count) } ?? -.infinity
                // Bit for bit, but −0 and +0 count as one (the probability cannot tell them apart).
                #expect(fast.bitPattern == plain.bitPattern || (fast == 0 && plain == 0), "\(row.prefix(4)) …")
            }
        }
    }

    // MARK: - Words from the path

    @Test("a word runs from its first token's row entry to the next word's")
    func wordsFromPath() {
        // Rows: <|notimestamps|>, " Hello", ",", " world" (text row i + 1 enters at the listed column).
        let path = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 3), (3, 3), (3, 4), (3, 5)].map { (row: $0.0, col: $0.1) }
        let words: [(word: String, tokens: [Int])] = [(" Hello", [1]), (",", [2]), (" world", [3]), ("", [50256])]
        let aligned = WordAligner.wordsFromPath(path, words: words, tokenProbabilities: [0.5, 0.25, 1])
        #expect(aligned.map(\.word) == [" Hello", ",", " world"])
        #expect(aligned.map(\.start) == [0, 0.02, 0.06])
        #expect(aligned.map(\.end) == [0.02, 0.06, 0.06])
        #expect(aligned.map(\.probability) == [0.5, 0.25, 1])
    }

    @Test("no words without text: end-of-text alone aligns nothing")
    func onlyEndOfText() {
        let words: [(word: String, tokens: [Int])] = [("", [50256])]
        #expect(WordAligner.wordsFromPath([(row: 0, col: 0)], words: words, tokenProbabilities: []).isEmpty)
    }

    // MARK: - Punctuation

    private func merged(_ words: [String]) -> [String] {
        var alignment = words.enumerated().map {
            WordAligner.AlignedWord(word: $0.element, tokens: [$0.offset], start: 0, end: 0, probability: 1)
        }
        WordAligner.mergePunctuations(&alignment, prepended: "\"'“¿([{-", appended: "\"'.。,，!！?？:：”)]}、")
        return alignment.map { "\($0.word)|\($0.tokens.map(String.init).joined(separator: ","))" }
    }

    @Test("closing punctuation joins the word before it")
    func appendsPunctuation() {
        #expect(merged([" Hello", ",", " world", "."]) == [" Hello,|0,1", "|", " world.|2,3", "|"])
        #expect(merged([" ¿", "Qué", "?"]) == ["|", " ¿Qué?|0,1,2", "|"])
        // "!?" is not a substring of the appended characters.
        #expect(merged([" Yes", "!?"]) == [" Yes|0", "!?|1"])
    }

    @Test("opening punctuation after a space joins the word after it")
    func prependsPunctuation() {
        #expect(merged([" He", " said", " \"", "Hi", "\"", "."]) == [" He|0", " said|1", "|", " \"Hi\".|2,3,4,5", "|", "|"])
        #expect(merged([" (", " a", ")", " b"]) == ["|", " ( a)|0,1,2", "|", " b|3"])
        #expect(merged([" -", " -", " well"]) == ["|", "|", " - - well|0,1,2"])
        // Without a leading space an opening quote stays; the closing one still merges.
        #expect(merged(["“", "Yes", "”"]) == ["“|0", "Yes”|1,2", "|"])
    }

    // MARK: - faster-whisper's duration hacks

    @Test("a long word next to a sentence end is cut to twice the median duration")
    func truncatesAtSentenceEnds() {
        func word(_ text: String, _ start: Double, _ end: Double) -> WordAligner.AlignedWord {
            WordAligner.AlignedWord(word: text, tokens: [0], start: start, end: end, probability: 1)
        }
        var alignment = [
            word(" One", 0, 0.25), word(" two", 0.25, 0.5), word(".", 0.5, 1.5), word(" Three", 1.5, 3.0),
            word(" four", 3.0, 3.25),
        ]
        let (median, maxDuration) = WordAligner.truncateLongWordsAtSentenceEnds(&alignment)
        #expect(median == 0.25)
        #expect(maxDuration == 0.5)
        #expect(alignment[2].end == 1.0)  // "." itself is the sentence end: start + max
        #expect(alignment[3].start == 2.5)  // the word after it: end − max
        #expect(alignment[4].start == 3.0 && alignment[4].end == 3.25)
        #expect(alignment[0].end == 0.25)  // the first word is never cut
    }

    @Test("the median ignores zero durations and is capped at 0.7 s")
    func medianDuration() {
        func words(_ durations: [Double]) -> [WordAligner.AlignedWord] {
            durations.map { WordAligner.AlignedWord(word: " a", tokens: [0], start: 0, end: $0, probability: 1) }
        }
        var a = words([0, 0.2, 0.4, 0, 0.6, 0.8])
        #expect(WordAligner.truncateLongWordsAtSentenceEnds(&a).median == 0.5)
        var b = words([1, 2, 3])
        let capped = WordAligner.truncateLongWordsAtSentenceEnds(&b)
        #expect(capped.median == 0.7 && capped.max == 1.4)
        var c = words([0, 0])
        let none = WordAligner.truncateLongWordsAtSentenceEnds(&c)
        #expect(none.median == 0 && none.max == 0)
    }

    @Test("segment bounds follow the words unless a word overruns the timestamp by more than 0.5 s")
    func adjustsBoundaries() {
        var words = [
            WordTiming(word: " Hi", start: 1.0, end: 1.3, probability: 1),
            WordTiming(word: " there", start: 1.3, end: 1.6, probability: 1),
        ]
        var start = 0.98
        var end = 1.62
        WordAligner.adjustBoundaries(
            words: &words, segmentStart: &start, segmentEnd: &end, lastSpeechTimestamp: 0.9, medianDuration: 0.3,
            maxDuration: 0.6)
        #expect(start == 1.0)
        #expect(end == 1.6)

        // After a pause, an overlong first word is cut to the maximum duration.
        words = [
            WordTiming(word: " Long", start: 2.0, end: 4.0, probability: 1),
            WordTiming(word: " word", start: 4.0, end: 4.25, probability: 1),
        ]
        start = 3.5
        end = 5.0
        WordAligner.adjustBoundaries(
            words: &words, segmentStart: &start, segmentEnd: &end, lastSpeechTimestamp: 1.0, medianDuration: 0.25,
            maxDuration: 0.5)
        #expect(words[0].start == 3.5)  // max(0, 4.0 − 0.5)
        #expect(start == 3.5)
        #expect(end == 4.25)

        // Without a pause, a first word starting more than 0.5 s before the segment's timestamp yields to it, and
        // so does a last word ending more than 0.5 s after the segment's end.
        words = [
            WordTiming(word: " Long", start: 2.0, end: 4.0, probability: 1),
            WordTiming(word: " words", start: 4.0, end: 6.0, probability: 1),
        ]
        start = 3.0
        end = 5.0
        WordAligner.adjustBoundaries(
            words: &words, segmentStart: &start, segmentEnd: &end, lastSpeechTimestamp: 3.75, medianDuration: 0.25,
            maxDuration: 0.5)
        #expect(words[0].start == 3.0)  // max(0, min(4.0 − 0.25, 3.0))
        #expect(words[1].end == 5.0)  // max(4.0 + 0.25, 5.0)
        #expect(start == 3.0 && end == 5.0)
    }

    // MARK: - Rounding

    @Test("times round to hundredths as numpy's round(x, 2)")
    func rounding() {
        #expect(WordAligner.roundToHundredths(2.675) == 2.68)
        #expect(WordAligner.roundToHundredths(0.285) == 0.28)
        #expect(WordAligner.roundToHundredths(28.0 + 0.125) == 28.12)
        #expect(WordAligner.roundToHundredths(30.0 + 0.06) == 30.06)
    }

    @Test("Python string tests: substring on code points, strip of white space")
    func pythonStrings() {
        #expect(WordAligner.pythonContains(".。!！?？", ""))
        #expect(WordAligner.pythonContains(".。!！?？", "。"))
        #expect(!WordAligner.pythonContains(".。!！?？", " ."))
        #expect(WordAligner.pythonStrip(" \t(\n") == "(")
        #expect(WordAligner.pythonStrip("   ") == "")
    }
}

/// Word alignment on real audio with the reference's tokens, against faster-whisper's words.
@Suite("Word alignment against faster-whisper", .heavyWork)
struct WordAlignerGoldenTests {
    @Test("beckett.wav, tiny.en: the same words, times within 0.02 s, probabilities within 1e-3")
    func beckettTinyEn() throws {
        let window = try BeckettWindow.load()
        let (model, golden, segmentSize, state) = (window.model, window.golden, window.segmentSize, window.state)
        try #require(window.samples.count < 30 * LogMel.sampleRate, "the whole recording is one window (seek 0)")
        let tb = model.tokenizer.timestampBegin
        // The segments as the transcriber cuts them, before the words move their bounds.
        var pieces = golden.segments.map { segment in
            PendingSegment(
                start: Double(segment.tokens.first! - tb) * 0.02, end: Double(segment.tokens.last! - tb) * 0.02,
                tokens: segment.tokens)
        }
        WordAligner.addWordTimestamps(
            to: &pieces, model: model, state: state, sotSequence: [model.tokenizer.sot], language: "en", timeOffset: 0,
            segmentSize: segmentSize, prependPunctuations: "\"'“¿([{-", appendPunctuations: "\"'.。,，!！?？:：”)]}、",
            lastSpeechTimestamp: 0)

        for (piece, segment) in zip(pieces, golden.segments) {
            let reference = golden.words(of: segment)
            let ours = try #require(piece.words)
            #expect(ours.map(\.word) == reference.map(\.word))
            for (word, theirs) in zip(ours, reference) {
                #expect(abs(word.start - theirs.start) <= 0.02, "\(word.word) start")
                #expect(abs(word.end - theirs.end) <= 0.02, "\(word.word) end")
                #expect(abs(word.probability - theirs.probability) <= 1e-3, "\(word.word) probability")
            }
            #expect(abs(piece.start - segment.start) <= 0.02)
            #expect(abs(piece.end - segment.end) <= 0.02)
        }
    }

    // The kernel sums its exponentials in eight lanes where this reference keeps one running float sum, whose own error
    // over 50,256 terms of at most 1 is bounded by 50,255 · 2⁻²⁴ ≈ 3e-3 of the sum (Higham); the two probabilities
    // must agree within that (here they differ by up to 4e-4). The live rules read probabilities against 0.15, 0.5
    // and 0.6, where 3e-3 of the value moves a word only at the threshold itself.
    @Test("beckett.wav, tiny.en: each token's probability is the softmax with a running maximum and sum, within the running sum's error")
    func probabilitiesMatchTheSoftmax() throws {
        let window = try BeckettWindow.load()
        let (model, golden, state) = (window.model, window.golden, window.state)
        let tokenizer = model.tokenizer
        let text = golden.segments.flatMap(\.tokens).filter { $0 < tokenizer.eot }
        let input = [tokenizer.sot, tokenizer.noTimestamps] + text + [tokenizer.eot]
        let logits = state.logits(state.forward([input]), rows: Array(2..<(2 + text.count)))
        let vocabulary = model.decoder.vocabularySize
        for (t, token) in text.enumerated() {
            let row = logits.pointer + t * vocabulary
            let maxValue = WordAlignerTests.runningMaximum(row, count: tokenizer.eot)
            var sum: Float = 0
            for i in 0..<tokenizer.eot { sum += expf(row[i] - maxValue) }
            let plain = Double(expf(row[token] - maxValue) * (1 / sum))
            let probability = WordAligner.textProbability(row, textVocabulary: tokenizer.eot, token: token)
            #expect(abs(probability - plain) <= 3e-3 * plain, "token \(t)")
        }
    }

    @Test("a window without text, a segment of timestamps only, and a window shorter than two frames give no words")
    func edgeCases() throws {
        let model = try Fixtures.model("tiny.en")
        // Some encoder output that varies over time (all zeros would attend uniformly and normalise to NaN).
        let encoded = Tensor(count: model.audioContext * model.modelWidth)
        for i in 0..<encoded.count { encoded[i] = sin(Float(i) * 0.37) + cos(Float(i / model.modelWidth) * 0.05) }
        let state = DecoderState(weights: model.decoder, encoderOutput: encoded, audioLength: model.audioContext)
        let tb = model.tokenizer.timestampBegin
        let text = model.tokenizer.encode(" Hello world.")
        func align(_ pieces: [PendingSegment], segmentSize: Int) -> [PendingSegment] {
            var pieces = pieces
            WordAligner.addWordTimestamps(
                to: &pieces, model: model, state: state, sotSequence: [model.tokenizer.sot], language: "en", timeOffset: 0,
                segmentSize: segmentSize, prependPunctuations: "\"'“¿([{-", appendPunctuations: "\"'.。,，!！?？:：”)]}、",
                lastSpeechTimestamp: 0)
            return pieces
        }

        let silent = align([PendingSegment(start: 0, end: 0, tokens: [tb, tb])], segmentSize: 3000)
        #expect(silent[0].words == [])
        #expect(silent[0].start == 0 && silent[0].end == 0)

        let mixed = align([
            PendingSegment(start: 0, end: 1, tokens: [tb] + text + [tb + 50]),
            PendingSegment(start: 1, end: 2, tokens: [tb + 50, tb + 100]),
        ], segmentSize: 3000)
        #expect(mixed[0].words?.map(\.word) == [" Hello", " world."])
        #expect(mixed[1].words == [])
        #expect(mixed[1].start == 1 && mixed[1].end == 2)

        let tiny = align([PendingSegment(start: 5, end: 5.01, tokens: text)], segmentSize: 1)
        #expect(tiny[0].words == [])
        #expect(tiny[0].start == 5 && tiny[0].end == 5.01)

        // A few frames (fewer than the median filter's width) still align.
        let short = align([PendingSegment(start: 0, end: 0.06, tokens: [tb] + text + [tb + 3])], segmentSize: 6)
        #expect(short[0].words?.map(\.word) == [" Hello", " world."])
        for word in short[0].words ?? [] { #expect(word.start >= 0 && word.end <= 0.06 && word.probability.isFinite) }
        for word in mixed[0].words ?? [] { #expect(word.start >= 0 && word.end <= 30 && word.probability.isFinite) }
    }
}

/// beckett.wav's one window through tiny.en's encoder, with the decoder state over it and faster-whisper's greedy
/// transcript of it: the real attention and logits the aligner's tests check.
struct BeckettWindow {
    let model: WhisperModel
    let golden: GoldenTranscript
    let samples: [Float]
    /// Mel frames of audio in the window.
    let segmentSize: Int
    let state: DecoderState

    static func load() throws -> BeckettWindow {
        let model = try Fixtures.model("tiny.en")
        let golden = try GoldenTranscript.load("tiny.en-beckett-greedy")
        let samples = try Fixtures.samples(golden.recording)
        let mel = model.logMel.spectrogram(samples)
        let segmentSize = min(LogMel.windowFrames, mel.frames - 1)
        let encoded = Encoder.encode(mel.window(start: 0, count: segmentSize), frames: LogMel.windowFrames, weights: model.encoder)
        let state = DecoderState(weights: model.decoder, encoderOutput: encoded, audioLength: model.audioContext)
        return BeckettWindow(model: model, golden: golden, samples: samples, segmentSize: segmentSize, state: state)
    }
}
