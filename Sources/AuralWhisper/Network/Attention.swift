/// Scaled dot-product attention over strided views of fused projections, one head at a time.
enum Attention {
    /// For each head h: output[:, h·dh ..< (h+1)·dh] = softmax(Q_h·K_hᵀ / √dh) · V_h.
    ///
    /// - Parameters:
    ///   - causalOffset: when set, query i sits at absolute position `causalOffset + i` and sees keys up to it.
    ///   - scores: scratch of at least queryCount × keyCount Floats, or heads × queryCount × keyCount with
    ///     `scoresHoldEveryHead`, which lets the heads run in parallel (decoder steps, whose products are too small to
    ///     split one by one). With no causal mask and no capture, `blockedScratchCount` Floats instead.
    ///   - capture: called per head, in order, with the softmax weights [queryCount × keyCount] (alignment heads).
    ///   - int8Products: the blocked path's products in int8 (`Int8Attention`).
    static func multiHead(
        queries: UnsafePointer<Float>, queryStride: Int,
        keys: UnsafePointer<Float>, values: UnsafePointer<Float>, keyStride: Int,
        queryCount: Int, keyCount: Int, heads: Int, headWidth: Int, causalOffset: Int?,
        scores: UnsafeMutablePointer<Float>, scoresHoldEveryHead: Bool = false, output: UnsafeMutablePointer<Float>,
        outputStride: Int, capture: ((_ head: Int, _ weights: UnsafePointer<Float>) -> Void)? = nil,
        int8Products: Bool = false
    ) {
        let scale = 1 / Float(headWidth).squareRoot()
        func head(_ h: Int, scores: UnsafeMutablePointer<Float>) {
            let offset = h * headWidth
            BLAS.gemm(
                m: queryCount, n: keyCount, k: headWidth, a: queries + offset, lda: queryStride,
                b: keys + offset, ldb: keyStride, transposeB: true, c: scores, ldc: keyCount)
            if let causalOffset {
                for i in 0..<queryCount {
                    let visible = causalOffset + i + 1
                    if visible < keyCount {
                        (scores + i * keyCount + visible).update(repeating: -.infinity, count: keyCount - visible)
                    }
                }
            }
            Parallel.forEachRange(queryCount, minimum: max(1, (1 << 16) / max(keyCount, 1))) { range in
                Kernels.softmaxRows(
                    scores + range.lowerBound * keyCount, rows: range.count, cols: keyCount, stride: keyCount, scale: scale)
            }
            capture?(h, scores)
            BLAS.gemm(
                m: queryCount, n: headWidth, k: keyCount, a: scores, lda: keyCount,
                b: values + offset, ldb: keyStride, transposeB: false, c: output + offset, ldc: outputStride)
        }
        let inBlocks = capture == nil && causalOffset == nil && takesBlocks(queryCount)
        if inBlocks && int8Products {
            let blocks = blockCount(queryCount)
            Int8Attention.blocked(
                queries: queries, queryStride: queryStride, keys: keys, values: values, keyStride: keyStride,
                queryCount: queryCount, keyCount: keyCount, heads: heads, headWidth: headWidth, blocks: blocks,
                largestBlock: largestBlock, blockRows: { blockRows($0, blocks: blocks, queryCount: queryCount) },
                scores: scores, output: output, outputStride: outputStride)
        } else if inBlocks {
            blocked(
                queries: queries, queryStride: queryStride, keys: keys, values: values, keyStride: keyStride,
                queryCount: queryCount, keyCount: keyCount, heads: heads, headWidth: headWidth, scores: scores,
                output: output, outputStride: outputStride)
        } else if scoresHoldEveryHead && capture == nil {
            WorkerPool.current.run(parts: heads) { h in head(h, scores: scores + h * queryCount * keyCount) }
        } else {
            for h in 0..<heads { head(h, scores: scores) }
        }
    }

    /// Queries per block of `blocked`: a multiple of `BLAS.rowTile`, so each block's rows come out of OpenBLAS as in
    /// one product over all the queries, and small enough that a block's scores against 1,500 keys (96 × 1,500
    /// Floats, 576 KB) stay in the second-level cache between the two products and the softmax.
    static let queryBlock = 2 * BLAS.rowTile

    /// The most queries one block holds: a last block of fewer than `BLAS.rowTile` queries joins the one before, since
    /// OpenBLAS computes products of a row or two another way (its small-matrix kernels), with other roundings.
    private static let largestBlock = queryBlock + BLAS.rowTile - 1

    /// Scratch Floats `multiHead` needs for `queryCount` queries over `keyCount` keys without a causal mask or a
    /// capture (the encoder): one block of scores per pool thread, or all the scores of a few queries.
    static func blockedScratchCount(queryCount: Int, keyCount: Int) -> Int {
        takesBlocks(queryCount) ? WorkerPool.current.threads * largestBlock * keyCount : queryCount * keyCount
    }

    /// Whether `queryCount` queries without a causal mask or a capture go through `blocked`: more than a few (a few
    /// rows' products take `SkinnyGEMM`, as they did before the blocks).
    private static func takesBlocks(_ queryCount: Int) -> Bool { queryCount > SkinnyGEMM.maxRows }

    /// The queries of block `index` among `blockCount(queryCount)`: blocks of `queryBlock`, the last one up to
    /// `largestBlock`.
    private static func blockRows(_ index: Int, blocks: Int, queryCount: Int) -> Range<Int> {
        index * queryBlock..<(index == blocks - 1 ? queryCount : (index + 1) * queryBlock)
    }

    /// Blocks for `queryCount` queries (at least one).
    private static func blockCount(_ queryCount: Int) -> Int {
        let whole = queryCount / queryBlock
        return max(1, queryCount % queryBlock >= BLAS.rowTile ? whole + 1 : whole)
    }

    /// `multiHead` for many queries (the encoder's self-attention): every head's queries in blocks, each block's
    /// scores, softmax and weighted values done at once while they are in cache, the blocks shared among the pool's
    /// threads. The same numbers as the head-by-head path (`AttentionTests`): each row's products and softmax are
    /// computed the same way, only in another order. Before, a head's 1,500 × 1,500 scores (9 MB) went to memory
    /// between the products and the softmax, and every head cost three hand-offs to the pool.
    private static func blocked(
        queries: UnsafePointer<Float>, queryStride: Int, keys: UnsafePointer<Float>, values: UnsafePointer<Float>,
        keyStride: Int, queryCount: Int, keyCount: Int, heads: Int, headWidth: Int,
        scores: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int
    ) {
        let scale = 1 / Float(headWidth).squareRoot()
        let blocks = blockCount(queryCount)
        let parts = min(WorkerPool.current.threads, blocks)
        WorkerPool.current.run(parts: parts) { part in
            let blockScores = scores + part * largestBlock * keyCount
            for h in 0..<heads {
                let offset = h * headWidth
                for block in stride(from: part, to: blocks, by: parts) {
                    let rows = blockRows(block, blocks: blocks, queryCount: queryCount)
                    BLAS.gemmOnThisThread(
                        m: rows.count, n: keyCount, k: headWidth, a: queries + rows.lowerBound * queryStride + offset,
                        lda: queryStride, b: keys + offset, ldb: keyStride, transposeB: true, c: blockScores,
                        ldc: keyCount)
                    Kernels.softmaxRows(blockScores, rows: rows.count, cols: keyCount, stride: keyCount, scale: scale)
                    BLAS.gemmOnThisThread(
                        m: rows.count, n: headWidth, k: keyCount, a: blockScores, lda: keyCount, b: values + offset,
                        ldb: keyStride, transposeB: false, c: output + rows.lowerBound * outputStride + offset,
                        ldc: outputStride)
                }
            }
        }
    }
}
