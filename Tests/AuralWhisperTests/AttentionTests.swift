import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("Attention", .heavyWork)
struct AttentionTests {
    /// Fused [rows × 3·width] projections as the encoder hands them over: unit-variance values, whose 64-wide dot
    /// products give softmax rows with a few large weights, as real queries and keys do.
    private static func projections(rows: Int, width: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed)
        return (0..<(rows * 3 * width)).map { _ in Float.random(in: -1.7...1.7, using: &generator) }
    }

    /// The blocked path (queries in blocks, each block's scores, softmax and weighted values together) claims the
    /// head-by-head path's numbers exactly, not within a tolerance: every row goes through the same OpenBLAS kernel
    /// and the same softmax, only in another order. A capture callback forces the head-by-head path.
    @Test(
        "the encoder's blocked self-attention equals the head-by-head one bit for bit",
        arguments: [(1500, 1500), (150, 1500), (97, 1500), (145, 1500), (191, 1500), (9, 1500), (1500, 1000)])
    func blockedEqualsHeadByHead(queryCount: Int, keyCount: Int) {
        let width = 384
        let heads = 6
        let keyRows = Self.projections(rows: keyCount, width: width, seed: 7)
        let queryRows = Self.projections(rows: queryCount, width: width, seed: 11)
        func attend(forceHeadByHead: Bool) -> [Float] {
            let scores = Tensor(count: forceHeadByHead
                ? queryCount * keyCount : Attention.blockedScratchCount(queryCount: queryCount, keyCount: keyCount))
            let output = Tensor(count: queryCount * width)
            keyRows.withUnsafeBufferPointer { k in
                queryRows.withUnsafeBufferPointer { q in
                    Attention.multiHead(
                        queries: q.baseAddress!, queryStride: 3 * width, keys: k.baseAddress! + width,
                        values: k.baseAddress! + 2 * width, keyStride: 3 * width, queryCount: queryCount,
                        keyCount: keyCount, heads: heads, headWidth: width / heads, causalOffset: nil,
                        scores: scores.pointer, output: output.pointer, outputStride: width,
                        capture: forceHeadByHead ? { _, _ in } : nil)
                }
            }
            return output.array
        }
        let blocked = attend(forceHeadByHead: false)
        let headByHead = attend(forceHeadByHead: true)
        #expect(blocked.allSatisfy { $0.isFinite })
        let differing = zip(blocked, headByHead).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(differing == 0, "\(differing) of \(blocked.count) outputs differ")
    }
}
