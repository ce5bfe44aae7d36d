import Foundation

/// Word-level timestamps from the cross-attention of the alignment heads, as faster-whisper 1.2.1 computes them
/// (`add_word_timestamps` and `find_alignment`) on top of CTranslate2's `Whisper::align`.
///
/// For one 30-second window: the text tokens of all its segments are fed once, teacher-forced, after the
/// start-of-transcript sequence and `<|notimestamps|>`, and followed by `<|endoftext|>`. The cross-attention of the
/// alignment heads, cut to the window's real frames, is normalised over the tokens, smoothed over time with a median
/// filter of width 7, averaged over the heads and aligned to the tokens by dynamic time warping. A token's time is the
/// first frame its row reaches on the path; a word runs from its first token's time to the next word's.
enum WordAligner {
    /// Width of the median filter over the attention (faster-whisper's `median_filter_width`).
    static let medianFilterWidth = 7

    /// One word of the alignment before it is placed in its segment (faster-whisper's alignment dict).
    struct AlignedWord: Equatable {
        /// The word's text ("" once merged into a neighbour).
        var word: String
        /// Its tokens ([] once merged into a neighbour).
        var tokens: [Int]
        /// Seconds from the start of the window.
        var start: Double
        var end: Double
        /// Mean probability of the tokens.
        var probability: Double
    }

    /// Sets `words` of every segment of one window and adjusts the segments' start and end to them.
    ///
    /// - Parameters:
    ///   - segments: the window's segments, in order (their tokens include the bounding timestamps).
    ///   - state: the window's decoder state (its cross-attention keys and values); its token cache is reset.
    ///   - segmentSize: mel frames of real audio in the window (≤ 3000).
    ///   - lastSpeechTimestamp: end of the speech before this window, in seconds.
    ///   - unscoredTokens: leading text tokens (a forced prefix) whose probability is not computed, but taken as 1.
    static func addWordTimestamps(
        to segments: inout [PendingSegment], model: WhisperModel, state: DecoderState, sotSequence: [Int],
        language: String, timeOffset: Double, segmentSize: Int, prependPunctuations: String, appendPunctuations: String,
        lastSpeechTimestamp: Double, unscoredTokens: Int = 0
    ) {
        guard !segments.isEmpty else { return }
        let tokenizer = model.tokenizer
        let textCounts = segments.map { $0.tokens.reduce(0) { $0 + ($1 < tokenizer.eot ? 1 : 0) } }
        var textTokens: [Int] = []
        textTokens.reserveCapacity(textCounts.reduce(0, +))
        for segment in segments { textTokens += segment.tokens.lazy.filter { $0 < tokenizer.eot } }

        var alignment = findAlignment(
            model: model, state: state, sotSequence: sotSequence, textTokens: textTokens, language: language,
            frames: segmentSize, unscoredTokens: unscoredTokens)
        let (medianDuration, maxDuration) = truncateLongWordsAtSentenceEnds(&alignment)
        mergePunctuations(&alignment, prepended: prependPunctuations, appended: appendPunctuations)

        var lastSpeech = lastSpeechTimestamp
        var wordIndex = 0
        for s in segments.indices {
            var words: [WordTiming] = []
            var savedTokens = 0
            while wordIndex < alignment.count && savedTokens < textCounts[s] {
                let timing = alignment[wordIndex]
                if !timing.word.isEmpty {
                    words.append(WordTiming(
                        word: timing.word, start: roundToHundredths(timeOffset + timing.start),
                        end: roundToHundredths(timeOffset + timing.end), probability: timing.probability))
                }
                savedTokens += timing.tokens.count
                wordIndex += 1
            }
            if !words.isEmpty {
                var start = segments[s].start
                var end = segments[s].end
                adjustBoundaries(
                    words: &words, segmentStart: &start, segmentEnd: &end, lastSpeechTimestamp: lastSpeech,
                    medianDuration: medianDuration, maxDuration: maxDuration)
                segments[s].start = start
                segments[s].end = end
                lastSpeech = end
            }
            segments[s].words = words
        }
    }

    // MARK: - The alignment (CTranslate2 `Whisper::align` and faster-whisper `find_alignment`)

    /// The words of `textTokens` with their times (seconds from the window start) and probabilities; empty when
    /// there is no text or no frame to align to.
    static func findAlignment(
        model: WhisperModel, state: DecoderState, sotSequence: [Int], textTokens: [Int], language: String, frames: Int,
        unscoredTokens: Int = 0
    ) -> [AlignedWord] {
        let tokenizer = model.tokenizer
        // CTranslate2 halves the frames (the encoder's stride) and aligns nothing when none is left.
        let positions = min(frames / 2, state.audioLength)
        guard !textTokens.isEmpty, positions > 0 else { return [] }
        let split = tokenizer.splitToWordTokens(textTokens + [tokenizer.eot], language: language)
        guard split.count > 1 else { return [] }

        let input = sotSequence + [tokenizer.noTimestamps] + textTokens + [tokenizer.eot]
        guard input.count <= state.weights.textContext else { return [] }
        let rowCount = input.count
        let sotLength = sotSequence.count
        let textLength = textTokens.count

        // The alignment heads in CTranslate2's order: by layer, then as listed for that layer.
        let layerCount = state.weights.layers.count
        let headCount = state.weights.heads
        let heads = orderedAlignmentHeads(model.alignmentHeads).filter {
            (0..<layerCount).contains($0.layer) && (0..<headCount).contains($0.head)
        }
        // Where each (layer, head) goes among the alignment heads (a head listed twice counts twice, as in CT2).
        let slots: [[Int]] = {
            var slots = [[Int]](repeating: [], count: layerCount * headCount)
            for (i, h) in heads.enumerated() { slots[h.layer * headCount + h.head].append(i) }
            return slots
        }()
        let headTotal = heads.count
        guard headTotal > 0 else { return [] }

        // attention[h][r][f]: softmax of the scores over the first `positions` frames only. The decoder hands over
        // the softmax over all the frames; renormalising its first `positions` values gives the same numbers.
        let audioLength = state.audioLength
        let attention = UnsafeMutablePointer<Float>.allocate(capacity: headTotal * rowCount * positions)
        defer { attention.deallocate() }
        state.reset()
        let hidden = state.forward([input]) { layer, head, weights in
            for index in slots[layer * headCount + head] {
                for r in 0..<rowCount {
                    let source = weights + r * audioLength
                    let target = attention + (index * rowCount + r) * positions
                    var sum = 0.0
                    for f in 0..<positions { sum += Double(source[f]) }
                    let inverse = sum > 0 ? 1 / sum : 0
                    for f in 0..<positions { target[f] = Float(Double(source[f]) * inverse) }
                }
            }
        }

        // Normalise each (head, frame) column over all the tokens (LayerNorm over the token axis, eps 0).
        let sums = UnsafeMutablePointer<Float>.allocate(capacity: 2 * positions)
        defer { sums.deallocate() }
        for h in 0..<headTotal {
            let block = attention + h * rowCount * positions
            normalizeColumns(block, rows: rowCount, cols: positions, scratch: sums)
        }

        // Median filter over time, then the mean of the heads, for the rows kept: `<|notimestamps|>` and the text.
        let keptRows = textLength + 1
        let matrix = UnsafeMutablePointer<Float>.allocate(capacity: keptRows * positions)
        defer { matrix.deallocate() }
        matrix.initialize(repeating: 0, count: keptRows * positions)
        let filtered = UnsafeMutablePointer<Float>.allocate(capacity: positions)
        defer { filtered.deallocate() }
        for r in 0..<keptRows {
            let out = matrix + r * positions
            for h in 0..<headTotal {
                MedianFilter.apply(
                    attention + (h * rowCount + sotLength + r) * positions, count: positions, width: medianFilterWidth,
                    into: filtered)
                for f in 0..<positions { out[f] += filtered[f] }
            }
            let divisor = Float(headTotal)
            for f in 0..<positions { out[f] /= divisor }
        }
        let path = negativeDTW(UnsafePointer(matrix), rows: keptRows, cols: positions)

        // Probability of each text token, from the softmax over the text vocabulary (ids below eot); 1 for the first
        // `unscoredTokens`, whose vocabulary-wide logits are not computed.
        let unscored = min(max(0, unscoredTokens), textLength)
        let logits = state.logits(hidden, rows: Array((sotLength + unscored)..<(sotLength + textLength)))
        let vocabulary = state.weights.vocabularySize
        var probabilities = [Double](repeating: 1, count: textLength)
        for t in unscored..<textLength {
            probabilities[t] = textProbability(
                logits.pointer + (t - unscored) * vocabulary, textVocabulary: tokenizer.eot, token: textTokens[t])
        }

        return wordsFromPath(path, words: split, tokenProbabilities: probabilities)
    }

    /// The heads sorted by layer, keeping the listed order within a layer (CTranslate2 concatenates them so).
    static func orderedAlignmentHeads(_ heads: [(layer: Int, head: Int)]) -> [(layer: Int, head: Int)] {
        heads.enumerated().sorted { a, b in
            a.element.layer != b.element.layer ? a.element.layer < b.element.layer : a.offset < b.offset
        }.map(\.element)
    }

    /// softmax over the first `textVocabulary` logits, at `token` (CTranslate2's softmax with a length). The
    /// exponentials replace the logits (`Kernels.expShifted`, eight lanes at a time).
    static func textProbability(_ logits: UnsafeMutablePointer<Float>, textVocabulary: Int, token: Int) -> Double {
        let maxValue = Kernels.maximum(logits, count: textVocabulary)
        let sum = Kernels.expShifted(logits, count: textVocabulary, scale: 1, shift: maxValue)
        return Double(logits[token] * (1 / sum))
    }

    /// Normalises each column of a [rows × cols] block to zero mean and unit (biased) variance, with no epsilon, as
    /// CTranslate2's `LayerNorm(-2, 0)`: variance = E[x²] − E[x]², at least 0.
    static func normalizeColumns(_ block: UnsafeMutablePointer<Float>, rows: Int, cols: Int, scratch: UnsafeMutablePointer<Float>) {
        let sum = scratch
        let squares = scratch + cols
        sum.initialize(repeating: 0, count: cols)
        squares.initialize(repeating: 0, count: cols)
        for r in 0..<rows {
            let row = block + r * cols
            for f in 0..<cols {
                let x = row[f]
                sum[f] += x
                squares[f] += x * x
            }
        }
        let n = Float(rows)
        for f in 0..<cols {
            let mean = sum[f] / n
            let variance = max(squares[f] / n - mean * mean, 0)
            sum[f] = mean
            squares[f] = 1 / variance.squareRoot()
        }
        for r in 0..<rows {
            let row = block + r * cols
            for f in 0..<cols { row[f] = (row[f] - sum[f]) * squares[f] }
        }
    }

    /// `MedianFilter.apply` on an array (for tests).
    static func medianFilter(_ values: [Float], width: Int) -> [Float] {
        var out = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                guard let source = input.baseAddress, let target = output.baseAddress else { return }
                MedianFilter.apply(source, count: values.count, width: width, into: target)
            }
        }
        return out
    }

    /// The monotonic path through a [rows × cols] matrix that maximises the summed values (dynamic time warping on
    /// the negated matrix), from (0, 0) to (rows − 1, cols − 1), as CTranslate2's `negative_dtw`: each cell comes
    /// from the diagonal when it is strictly cheapest, else from above when that is strictly cheapest, else from
    /// the left.
    static func negativeDTW(_ x: UnsafePointer<Float>, rows n: Int, cols m: Int) -> [(row: Int, col: Int)] {
        guard n > 0, m > 0 else { return [] }
        let width = m + 1
        var cost = [Float](repeating: .infinity, count: (n + 1) * width)
        // 0 diagonal, 1 from above (row − 1), 2 from the left (column − 1).
        var trace = [UInt8](repeating: 2, count: (n + 1) * width)
        cost[0] = 0
        for i in 1...n { trace[i * width] = 1 }
        for i in 1...n {
            for j in 1...m {
                let c0 = cost[(i - 1) * width + j - 1]
                let c1 = cost[(i - 1) * width + j]
                let c2 = cost[i * width + j - 1]
                let c: Float
                let t: UInt8
                if c0 < c1 && c0 < c2 {
                    c = c0
                    t = 0
                } else if c1 < c0 && c1 < c2 {
                    c = c1
                    t = 1
                } else {
                    c = c2
                    t = 2
                }
                cost[i * width + j] = -x[(i - 1) * m + j - 1] + c
                trace[i * width + j] = t
            }
        }
        var path: [(row: Int, col: Int)] = []
        path.reserveCapacity(n + m)
        var i = n
        var j = m
        while i > 0 || j > 0 {
            path.append((i - 1, j - 1))
            switch trace[i * width + j] {
            case 0:
                i -= 1
                j -= 1
            case 1: i -= 1
            default: j -= 1
            }
        }
        path.reverse()
        return path
    }

    /// `negativeDTW` on an array (for tests).
    static func negativeDTW(_ values: [Float], rows: Int, cols: Int) -> [(row: Int, col: Int)] {
        values.withUnsafeBufferPointer { negativeDTW($0.baseAddress!, rows: rows, cols: cols) }
    }

    /// Word times from the DTW path (faster-whisper `find_alignment`): a row's time is the column where the path
    /// first enters it; a word starts at its first token's row and ends at the next word's. `words` ends with the
    /// end-of-text word, which only closes the last real word.
    static func wordsFromPath(
        _ path: [(row: Int, col: Int)], words: [(word: String, tokens: [Int])], tokenProbabilities: [Double]
    ) -> [AlignedWord] {
        guard words.count > 1 else { return [] }
        var jumpTimes: [Double] = []
        jumpTimes.reserveCapacity(tokenProbabilities.count + 1)
        for (k, step) in path.enumerated() where k == 0 || step.row != path[k - 1].row {
            jumpTimes.append(Double(step.col) * WhisperTime.secondsPerPosition)
        }
        var result: [AlignedWord] = []
        result.reserveCapacity(words.count - 1)
        var boundary = 0
        for w in 0..<(words.count - 1) {
            let next = boundary + words[w].tokens.count
            guard next < jumpTimes.count, next <= tokenProbabilities.count else { break }
            var sum = 0.0
            for t in boundary..<next { sum += tokenProbabilities[t] }
            result.append(AlignedWord(
                word: words[w].word, tokens: words[w].tokens, start: jumpTimes[boundary], end: jumpTimes[next],
                probability: sum / Double(next - boundary)))
            boundary = next
        }
        return result
    }

    // MARK: - faster-whisper's post-processing

    /// Clamps words longer than twice the median duration next to a sentence end, and returns the median word
    /// duration (at most 0.7 s) and that maximum.
    static func truncateLongWordsAtSentenceEnds(_ alignment: inout [AlignedWord]) -> (median: Double, max: Double) {
        let durations = alignment.map { $0.end - $0.start }.filter { $0 != 0 }.sorted()
        var median = 0.0
        if !durations.isEmpty {
            let middle = durations.count / 2
            median = durations.count % 2 == 1 ? durations[middle] : (durations[middle - 1] + durations[middle]) / 2
        }
        median = min(0.7, median)
        let maxDuration = median * 2
        if !durations.isEmpty {
            let sentenceEnds = ".。!！?？"
            for i in alignment.indices.dropFirst() where alignment[i].end - alignment[i].start > maxDuration {
                if pythonContains(sentenceEnds, alignment[i].word) {
                    alignment[i].end = alignment[i].start + maxDuration
                } else if pythonContains(sentenceEnds, alignment[i - 1].word) {
                    alignment[i].start = alignment[i].end - maxDuration
                }
            }
        }
        return (median, maxDuration)
    }

    /// Moves opening punctuation (a word " (" …) into the word after it and closing punctuation ("." …) into the
    /// word before it, leaving an empty word and no tokens behind (faster-whisper `merge_punctuations`).
    static func mergePunctuations(_ alignment: inout [AlignedWord], prepended: String, appended: String) {
        guard alignment.count > 1 else { return }
        var i = alignment.count - 2
        var j = alignment.count - 1
        while i >= 0 {
            let previous = alignment[i]
            if previous.word.unicodeScalars.first == " " && pythonContains(prepended, pythonStrip(previous.word)) {
                alignment[j].word = previous.word + alignment[j].word
                alignment[j].tokens = previous.tokens + alignment[j].tokens
                alignment[i].word = ""
                alignment[i].tokens = []
            } else {
                j = i
            }
            i -= 1
        }
        i = 0
        j = 1
        while j < alignment.count {
            let following = alignment[j]
            if alignment[i].word.unicodeScalars.last != " " && pythonContains(appended, following.word) {
                alignment[i].word += following.word
                alignment[i].tokens += following.tokens
                alignment[j].word = ""
                alignment[j].tokens = []
            } else {
                i = j
            }
            j += 1
        }
    }

    /// faster-whisper's boundary hacks for one segment's words: after a pause, the first word (and the second)
    /// may last at most `maxDuration`; a first or last word reaching more than 0.5 s beyond the segment's timestamp
    /// gives way to it; otherwise the segment takes the words' start and end.
    static func adjustBoundaries(
        words: inout [WordTiming], segmentStart: inout Double, segmentEnd: inout Double, lastSpeechTimestamp: Double,
        medianDuration: Double, maxDuration: Double
    ) {
        guard !words.isEmpty else { return }
        let last = words.count - 1
        if words[0].end - lastSpeechTimestamp > medianDuration * 4
            && (words[0].end - words[0].start > maxDuration
                || (words.count > 1 && words[1].end - words[0].start > maxDuration * 2)) {
            if words.count > 1 && words[1].end - words[1].start > maxDuration {
                let boundary = max(words[1].end / 2, words[1].end - maxDuration)
                words[0].end = boundary
                words[1].start = boundary
            }
            words[0].start = max(0, words[0].end - maxDuration)
        }
        if segmentStart < words[0].end && segmentStart - 0.5 > words[0].start {
            words[0].start = max(0, min(words[0].end - medianDuration, segmentStart))
        } else {
            segmentStart = words[0].start
        }
        if segmentEnd > words[last].start && segmentEnd + 0.5 < words[last].end {
            words[last].end = max(words[last].start + medianDuration, segmentEnd)
        } else {
            segmentEnd = words[last].end
        }
    }

    /// numpy's `round(x, 2)`: x·100 rounded half to even, over 100.
    static func roundToHundredths(_ x: Double) -> Double {
        (x * 100).rounded(.toNearestOrEven) / 100
    }

    // MARK: - Python string semantics

    /// Python's `needle in haystack` on code points (true for an empty needle).
    static func pythonContains(_ haystack: String, _ needle: String) -> Bool {
        let h = Array(haystack.unicodeScalars)
        let n = Array(needle.unicodeScalars)
        if n.isEmpty { return true }
        if n.count > h.count { return false }
        for start in 0...(h.count - n.count) where h[start] == n[0] {
            if h[start..<(start + n.count)].elementsEqual(n) { return true }
        }
        return false
    }

    /// Python's `str.strip()`: without leading and trailing white space (Unicode White_Space and U+001C–U+001F).
    static func pythonStrip(_ text: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isWhitespace || (0x1C...0x1F).contains(scalar.value)
        }
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[first...last])
        return String(result)
    }
}
