/// Scaled dot-product attention over strided views of fused projections, one head at a time.
enum Attention {
    /// For each head h: output[:, h·dh ..< (h+1)·dh] = softmax(Q_h·K_hᵀ / √dh) · V_h.
    ///
    /// - Parameters:
    ///   - causalOffset: when set, query i sits at absolute position `causalOffset + i` and sees keys up to it.
    ///   - scores: scratch of at least queryCount × keyCount Floats, or heads × queryCount × keyCount with
    ///     `scoresHoldEveryHead`, which lets the heads run in parallel (decoder steps, whose products are too small to
    ///     split one by one).
    ///   - capture: called per head, in order, with the softmax weights [queryCount × keyCount] (alignment heads).
    static func multiHead(
        queries: UnsafePointer<Float>, queryStride: Int,
        keys: UnsafePointer<Float>, values: UnsafePointer<Float>, keyStride: Int,
        queryCount: Int, keyCount: Int, heads: Int, headWidth: Int, causalOffset: Int?,
        scores: UnsafeMutablePointer<Float>, scoresHoldEveryHead: Bool = false, output: UnsafeMutablePointer<Float>,
        outputStride: Int, capture: ((_ head: Int, _ weights: UnsafePointer<Float>) -> Void)? = nil
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
        if scoresHoldEveryHead && capture == nil {
            WorkerPool.current.run(parts: heads) { h in head(h, scores: scores + h * queryCount * keyCount) }
        } else {
            for h in 0..<heads { head(h, scores: scores) }
        }
    }
}
