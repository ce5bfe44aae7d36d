/// Products of a few rows of activations against a weight matrix stored [out, in] (C = A·Bᵀ with m ≤ 8): the shape
/// of every decoder step. OpenBLAS packs all of B for each such call, which costs more than the product; the C
/// kernels (`CKernels`, the build for this CPU) read each weight once, with every row's accumulators in registers,
/// and this splits the outputs across two threads when the matrix is large.
enum SkinnyGEMM {
    /// Rows handled at most.
    static let maxRows = 8

    /// c[r, o] = alpha · Σₖ a[r, k] · b[o, k] + beta · c[r, o] for r < m, o < n.
    ///
    /// The shapes are checked once per call (a violation stops the process); the C kernel reads a[m × k] with
    /// leading dimension lda, b[n × k] with ldb, and writes c[m × n] with ldc.
    static func multiply<Weight: SkinnyWeight>(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Weight>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float, kernels: KernelSet = .active
    ) {
        precondition(m >= 1 && m <= maxRows && n >= 0 && k >= 0, "SkinnyGEMM takes 1 to \(maxRows) rows")
        precondition((m == 1 || (lda >= k && ldc >= n)) && (n <= 1 || ldb >= k), "SkinnyGEMM: a leading dimension is too small")
        let work = n * k * m
        let parts = work >= 1 << 16 ? min(2, WorkerPool.current.threads) : 1
        if parts == 1 {
            Weight.multiply(kernels, 0..<n, m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
            return
        }
        WorkerPool.current.run(parts: parts) { part in
            let lower = n * part / parts
            let upper = n * (part + 1) / parts
            Weight.multiply(kernels, lower..<upper, m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
        }
    }

    /// c[r, :] = Σₖ a[r, k] · b[k, :] for r < m (B not transposed, [k × n] with leading dimension ldb): the
    /// attention-weighted sum of values in a decoder step. A width of 64 (one head) keeps all sums in registers.
    static func multiplyUntransposed(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, kernels: KernelSet = .active
    ) {
        precondition(m >= 1 && m <= maxRows && n >= 0 && k >= 0, "SkinnyGEMM takes 1 to \(maxRows) rows")
        precondition((m == 1 || (lda >= k && ldc >= n)) && (k <= 1 || ldb >= n), "SkinnyGEMM: a leading dimension is too small")
        kernels.table.pointee.weighted_sum(Int32(m), n, k, a, lda, b, ldb, c, ldc)
    }
}

/// A weight element type the skinny kernels read: Float, or Float16 converted on load (F16C on x86).
protocol SkinnyWeight: Sendable {
    /// The outputs `outputs` of `SkinnyGEMM.multiply` with this weight type, on the calling thread.
    static func multiply(
        _ kernels: KernelSet, _ outputs: Range<Int>, m: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Self>, ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float)
}

extension Float: SkinnyWeight {
    static func multiply(
        _ kernels: KernelSet, _ outputs: Range<Int>, m: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        kernels.table.pointee.skinny_f32(
            outputs.lowerBound, outputs.upperBound, Int32(m), k, a, lda, b, ldb, c, ldc, alpha, beta)
    }
}

extension Float16: SkinnyWeight {
    static func multiply(
        _ kernels: KernelSet, _ outputs: Range<Int>, m: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float16>, ldb: Int, c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        // The kernel takes the weights as their bits (UInt16), which have the same size and alignment.
        let bits = UnsafeRawPointer(b).assumingMemoryBound(to: UInt16.self)
        kernels.table.pointee.skinny_f16(
            outputs.lowerBound, outputs.upperBound, Int32(m), k, a, lda, bits, ldb, c, ldc, alpha, beta)
    }
}
