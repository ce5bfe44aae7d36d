/// The one place the engine calls cblas: row-major matrix products over raw Float pointers.
///
/// Linear layers store `W` as [out, in]; `y = x · Wᵀ + b` is `gemm(a: x, b: W, transposeB: true)`.
enum BLAS {
    /// C[m×n] = alpha · A[m×k] · op(B) + beta · C, with leading dimensions for strided views (heads in a fused row).
    /// `op(B)` is B[k×n] or, with `transposeB`, Bᵀ where B is [n×k].
    @inline(__always)
    static func gemm(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
        c: UnsafeMutablePointer<Float>, ldc: Int,
        alpha: Float = 1, beta: Float = 0
    ) {
        if transposeB && m <= SkinnyGEMM.maxRows {
            SkinnyGEMM.multiply(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
            return
        }
        if !transposeB && m <= SkinnyGEMM.maxRows && alpha == 1 && beta == 0 && n <= 256 {
            SkinnyGEMM.multiplyUntransposed(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc)
            return
        }
        let parts = rowParts(m: m, work: m * n * k)
        if parts == 1 {
            OpenBLAS.shared.sgemm(
                OpenBLAS.rowMajor, OpenBLAS.noTranspose, transposeB ? OpenBLAS.transpose : OpenBLAS.noTranspose,
                Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
            return
        }
        WorkerPool.current.run(parts: parts) { part in
            let rows = rowRange(part, of: parts, m: m)
            OpenBLAS.shared.sgemm(
                OpenBLAS.rowMajor, OpenBLAS.noTranspose, transposeB ? OpenBLAS.transpose : OpenBLAS.noTranspose,
                Int32(rows.count), Int32(n), Int32(k), alpha, a + rows.lowerBound * lda, Int32(lda),
                b, Int32(ldb), beta, c + rows.lowerBound * ldc, Int32(ldc))
        }
    }

    /// `gemm` through OpenBLAS on the calling thread alone, whatever the shape (no small-product kernels, no split):
    /// for callers that already run their own parts on the pool's threads. Cut at multiples of `rowTile`, its rows
    /// equal those of one unsplit OpenBLAS product bit for bit.
    static func gemmOnThisThread(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        OpenBLAS.shared.sgemm(
            OpenBLAS.rowMajor, OpenBLAS.noTranspose, transposeB ? OpenBLAS.transpose : OpenBLAS.noTranspose,
            Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb), 0, c, Int32(ldc))
    }

    /// Rows per cut: OpenBLAS's register tile is 16 rows in the SkylakeX sgemm kernel and 24 in the Haswell and Zen
    /// ones (4 and 16 for dgemm); cutting at a common multiple keeps every row in the same kernel as in an unsplit
    /// product, so a split product equals the single-threaded one bit for bit on each kernel.
    static let rowTile = 48

    /// Row blocks for a product of `m` rows: one per pool thread when the product is large enough to pay for it,
    /// each at least `rowTile` rows (so none is empty).
    private static func rowParts(m: Int, work: Int) -> Int {
        work >= 1 << 21 && m >= 2 * rowTile ? min(WorkerPool.current.threads, m / rowTile) : 1
    }

    /// Rows of block `part`, cut at multiples of `rowTile`.
    private static func rowRange(_ part: Int, of parts: Int, m: Int) -> Range<Int> {
        let lower = part == 0 ? 0 : min(m, (m * part / parts + rowTile - 1) / rowTile * rowTile)
        let upper = part == parts - 1 ? m : min(m, (m * (part + 1) / parts + rowTile - 1) / rowTile * rowTile)
        return lower..<upper
    }

    /// The Double counterpart of `gemm` without transposes: C[m×n] = A[m×k] · B[k×n] (the log-mel DFT, where
    /// Float sums lose the weak bins between strong tones).
    static func dgemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Double>, lda: Int, b: UnsafePointer<Double>, ldb: Int,
        c: UnsafeMutablePointer<Double>, ldc: Int
    ) {
        let parts = rowParts(m: m, work: m * n * k)
        WorkerPool.current.run(parts: parts) { part in
            let rows = rowRange(part, of: parts, m: m)
            OpenBLAS.shared.dgemm(
                OpenBLAS.rowMajor, OpenBLAS.noTranspose, OpenBLAS.noTranspose, Int32(rows.count), Int32(n), Int32(k), 1,
                a + rows.lowerBound * lda, Int32(lda), b, Int32(ldb), 0, c + rows.lowerBound * ldc, Int32(ldc))
        }
    }

    /// y[m] = A[m×n] · x[n] (row-major A with leading dimension `lda`): one row of activations against a weight
    /// matrix, read once without the packing a product of matrices does.
    @inline(__always)
    static func gemv(m: Int, n: Int, a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, beta: Float = 0) {
        OpenBLAS.shared.sgemv(OpenBLAS.rowMajor, OpenBLAS.noTranspose, Int32(m), Int32(n), 1, a, Int32(lda), x, 1, beta, y, 1)
    }
}
