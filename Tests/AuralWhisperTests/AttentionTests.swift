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

    private static let width = 384
    private static let heads = 6

    /// `Attention.multiHead` over the fused projections' queries, keys and values: head by head (a capture forces
    /// that path), or blocked with float32 or int8 products.
    private static func attend(
        _ queryRows: [Float], _ keyRows: [Float], queryCount: Int, keyCount: Int, headByHead: Bool = false, int8: Bool = false
    ) -> [Float] {
        let scores = Tensor(count: headByHead
            ? queryCount * keyCount : Attention.blockedScratchCount(queryCount: queryCount, keyCount: keyCount))
        let output = Tensor(count: queryCount * width)
        keyRows.withUnsafeBufferPointer { k in
            queryRows.withUnsafeBufferPointer { q in
                Attention.multiHead(
                    queries: q.baseAddress!, queryStride: 3 * width, keys: k.baseAddress! + width,
                    values: k.baseAddress! + 2 * width, keyStride: 3 * width, queryCount: queryCount,
                    keyCount: keyCount, heads: heads, headWidth: width / heads, causalOffset: nil,
                    scores: scores.pointer, output: output.pointer, outputStride: width,
                    capture: headByHead ? { _, _ in } : nil, int8Products: int8)
            }
        }
        return output.array
    }

    /// The blocked path (queries in blocks, each block's scores, softmax and weighted values together) claims the
    /// head-by-head path's numbers exactly, not within a tolerance: every row goes through the same OpenBLAS kernel
    /// and the same softmax, only in another order. A capture callback forces the head-by-head path.
    @Test(
        "the encoder's blocked self-attention equals the head-by-head one bit for bit",
        arguments: [(1500, 1500), (150, 1500), (97, 1500), (145, 1500), (191, 1500), (9, 1500), (1500, 1000)])
    func blockedEqualsHeadByHead(queryCount: Int, keyCount: Int) {
        let keyRows = Self.projections(rows: keyCount, width: Self.width, seed: 7)
        let queryRows = Self.projections(rows: queryCount, width: Self.width, seed: 11)
        let blocked = Self.attend(queryRows, keyRows, queryCount: queryCount, keyCount: keyCount, headByHead: false)
        let headByHead = Self.attend(queryRows, keyRows, queryCount: queryCount, keyCount: keyCount, headByHead: true)
        #expect(blocked.allSatisfy { $0.isFinite })
        let differing = zip(blocked, headByHead).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(differing == 0, "\(differing) of \(blocked.count) outputs differ")
    }

    /// The int8 products round queries, keys and values to 8 bits (a step of 1/127 of the row's or channel's largest
    /// magnitude) and the softmax weights to 255 levels of the row's largest weight. Each output is a weighted mean of
    /// values no larger than 1.7, so a value's rounding moves it by at most 1.7/254 ≈ 0.007; the weights' and scores'
    /// roundings add errors of the same order that partly cancel. Measured on this data: largest 0.008, mean 0.0005,
    /// against a mean output magnitude of 0.03 (these rows spread their weight widely). Bounds at twice that.
    @Test(
        "the int8 self-attention stays within 8-bit rounding of the float32 one",
        .enabled(if: Int8Attention.applies(to: .int8), "int8 attention runs on CPUs with AVX-512 VNNI only"),
        arguments: [(1500, 1500), (150, 1500), (97, 1500), (1500, 1000)])
    func int8WithinRounding(queryCount: Int, keyCount: Int) {
        let keyRows = Self.projections(rows: keyCount, width: Self.width, seed: 7)
        let queryRows = Self.projections(rows: queryCount, width: Self.width, seed: 11)
        let exact = Self.attend(queryRows, keyRows, queryCount: queryCount, keyCount: keyCount)
        let int8 = Self.attend(queryRows, keyRows, queryCount: queryCount, keyCount: keyCount, int8: true)
        let differences = zip(exact, int8).map { abs($0 - $1) }
        let largest = differences.max() ?? 0
        let mean = differences.reduce(0, +) / Float(differences.count)
        let typical = exact.map(abs).reduce(0, +) / Float(exact.count)
        #expect(largest < 0.015 && mean < 0.001, "largest \(largest), mean \(mean), typical output \(typical)")
    }
}
