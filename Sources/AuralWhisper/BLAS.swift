import CBLAS

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
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc))
    }

    /// The Double counterpart of `gemm` without transposes: C[m×n] = A[m×k] · B[k×n] (the log-mel DFT, where
    /// Float sums lose the weak bins between strong tones).
    static func dgemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Double>, lda: Int, b: UnsafePointer<Double>, ldb: Int,
        c: UnsafeMutablePointer<Double>, ldc: Int
    ) {
        cblas_dgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), 1, a, blasint(lda), b,
            blasint(ldb), 0, c, blasint(ldc))
    }

    /// y[m] = A[m×n] · x[n] (row-major A with leading dimension `lda`): one row of activations against a weight
    /// matrix, read once without the packing a product of matrices does.
    @inline(__always)
    static func gemv(m: Int, n: Int, a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, beta: Float = 0) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, blasint(m), blasint(n), 1, a, blasint(lda), x, 1, beta, y, 1)
    }

    /// Sets how many threads OpenBLAS uses for each product.
    static func setThreads(_ count: Int) {
        openblas_set_num_threads(Int32(max(1, count)))
    }

    /// The thread count OpenBLAS uses now.
    static var threads: Int { Int(openblas_get_num_threads()) }
}
