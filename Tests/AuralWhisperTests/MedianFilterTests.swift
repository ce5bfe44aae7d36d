import Foundation
import TestSupport
import Testing

@testable import AuralWhisper

/// The selection network of `MedianFilter` against the insertion sort it replaces (CTranslate2's way), which stays
/// the reference: the two must give the same bits (a median is a selection, so there is no tolerance), except +0
/// for −0 where the window holds both (they compare equal; the aligner cannot tell them apart).
@Suite("Median filter", .heavyWork)
struct MedianFilterTests {
    /// The filter through `apply` (network inside, sort at the edges) and through the sort alone.
    private func bothWays(_ values: [Float], width: Int = 7) -> (fast: [Float], plain: [Float]) {
        let fast = WordAligner.medianFilter(values, width: width)
        var plain = values  // up to width / 2 values pass through
        guard values.count > width / 2 else { return (fast, plain) }
        values.withUnsafeBufferPointer { input in
            plain.withUnsafeMutableBufferPointer { output in
                MedianFilter.sortedMedians(
                    input.baseAddress!, count: values.count, width: width, at: 0..<values.count, into: output.baseAddress!)
            }
        }
        return (fast, plain)
    }

    /// Same bits, or two zeros.
    private func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a == 0 && b == 0) }

    @Test("every window of seven values from {−1, 0, 1}: ties, and the 0–1 principle's binary inputs")
    func exhaustiveTernary() {
        var differing: [[Float]] = []
        for code in 0..<2187 {
            var rest = code
            let window = (0..<7).map { _ -> Float in
                defer { rest /= 3 }
                return Float(rest % 3 - 1)
            }
            let (fast, plain) = bothWays(window)
            if fast[3] != plain[3] || fast[3] != window.sorted()[3] { differing.append(window) }
        }
        #expect(differing.isEmpty, "\(differing.count) windows differ, the first \(differing.first ?? [])")
    }

    @Test("random rows of every length up to 40, with repeats, zeros of both signs and infinities")
    func randomRows() {
        var generator = SplitMix64(seed: 7)
        let specials: [Float] = [0, -0.0, .infinity, -.infinity, 1, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        var differing: [[Float]] = []
        for count in 0...40 {
            for _ in 0..<50 {
                let row = (0..<count).map { _ -> Float in
                    let pick = Int(generator.next() % 10)
                    if pick < specials.count && generator.next() % 4 == 0 { return specials[pick] }
                    return Float(Int(generator.next() % 2001) - 1000) / 997
                }
                let (fast, plain) = bothWays(row)
                if !zip(fast, plain).allSatisfy(same) { differing.append(row) }
            }
        }
        #expect(differing.isEmpty, "\(differing.count) rows differ, the first \(differing.first ?? [])")
    }

    @Test("a row holding a NaN takes the sort everywhere: the same bits, NaN included")
    func nanFallsBack() {
        var row = (0..<30).map { Float(($0 * 7919) % 31) }
        row[12] = .nan
        let (fast, plain) = bothWays(row)
        #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern))
    }

    @Test("other widths take the sort")
    func otherWidths() {
        let row = (0..<25).map { Float(($0 * 37) % 11) }
        for width in [1, 3, 5, 9] {
            let (fast, plain) = bothWays(row, width: width)
            #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern), "width \(width)")
        }
    }

    @Test("the alignment heads' normalised cross-attention on beckett.wav: the same bits in every row")
    func realAttention() throws {
        let window = try BeckettWindow.load()
        let (model, golden, segmentSize, state) = (window.model, window.golden, window.segmentSize, window.state)
        let tokenizer = model.tokenizer
        let text = golden.segments.flatMap(\.tokens).filter { $0 < tokenizer.eot }
        let input = [tokenizer.sot, tokenizer.noTimestamps] + text + [tokenizer.eot]
        let positions = segmentSize / 2
        let heads = Set(model.alignmentHeads.map { $0.layer * model.decoder.heads + $0.head })
        // Each alignment head's weights over the real frames, columns normalised over the tokens as the aligner does.
        var blocks: [[Float]] = []
        _ = state.forward([input]) { layer, head, weights in
            guard heads.contains(layer * model.decoder.heads + head) else { return }
            var block = [Float](repeating: 0, count: input.count * positions)
            for r in 0..<input.count {
                for f in 0..<positions { block[r * positions + f] = weights[r * model.audioContext + f] }
            }
            var scratch = [Float](repeating: 0, count: 2 * positions)
            block.withUnsafeMutableBufferPointer { b in
                scratch.withUnsafeMutableBufferPointer { s in
                    WordAligner.normalizeColumns(b.baseAddress!, rows: input.count, cols: positions, scratch: s.baseAddress!)
                }
            }
            blocks.append(block)
        }
        try #require(blocks.count == heads.count && positions > 100)
        var differing = 0
        for block in blocks {
            for r in 0..<input.count {
                let (fast, plain) = bothWays(Array(block[(r * positions)..<((r + 1) * positions)]))
                if !zip(fast, plain).allSatisfy(same) { differing += 1 }
            }
        }
        #expect(differing == 0, "\(differing) of \(blocks.count * input.count) rows differ")
    }
}
