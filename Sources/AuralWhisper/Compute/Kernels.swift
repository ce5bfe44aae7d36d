/// Element-wise and row-wise kernels of the transformer: layer norm, GELU, softmax, bias.
/// All work on raw row-major Float buffers; the callers own the memory.
enum Kernels {
    /// y[r] = (x[r] - mean) / sqrt(var + 1e-5) · gamma + beta for each row of `cols` values (biased variance), the
    /// sums in eight lanes (`ck_layer_norm`); many rows are split across the pool (each row alone, so the same bits).
    static func layerNorm(
        _ x: UnsafePointer<Float>, rows: Int, cols: Int, gamma g: UnsafePointer<Float>, beta b: UnsafePointer<Float>,
        into y: UnsafeMutablePointer<Float>, kernels: KernelSet = .active
    ) {
        precondition(rows >= 0 && cols > 0)
        let table = kernels.table
        Parallel.forEachRange(rows, minimum: 256) { range in
            table.pointee.layer_norm(x + range.lowerBound * cols, range.count, cols, g, b, y + range.lowerBound * cols)
        }
    }

    /// Adds `bias` (length `cols`) to every row.
    static func addBias(_ y: UnsafeMutablePointer<Float>, rows: Int, cols: Int, bias b: UnsafePointer<Float>) {
        for r in 0..<rows {
            let yr = y + r * cols
            for i in 0..<cols { yr[i] += b[i] }
        }
    }

    /// GELU, 0.5·x·(1 + erf(x/√2)), in place (CTranslate2's activation 3, PyTorch's default), eight lanes at a time
    /// in the C kernel (sixteen in the AVX-512 build, with the same numbers). erf comes from Abramowitz–Stegun 7.1.26 (absolute error below 1.5e-7, under Float's rounding
    /// of the result); the last count % 8 values use the C library's `erff`.
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int, kernels: KernelSet = .active) {
        precondition(count >= 0)
        Parallel.forEachRange(count / 8) { range in
            kernels.table.pointee.gelu(x + range.lowerBound * 8, range.count * 8)
        }
        let tail = count / 8 * 8
        kernels.table.pointee.gelu(x + tail, count - tail)
    }

    /// Softmax of each row in place, after multiplying by `scale`; a row that is all −∞ becomes zeros.
    static func softmaxRows(
        _ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, stride: Int, scale: Float = 1, kernels: KernelSet = .active
    ) {
        precondition(rows >= 0 && cols >= 0 && (rows <= 1 || stride >= cols))
        kernels.table.pointee.softmax_rows(x, rows, cols, stride, scale)
    }

    /// The largest of x[0..<count], NaN skipped (−∞ when there is none). Eight lanes at a time: the value a running
    /// `where x > largest` finds, except that of +0 and −0 it may keep the other.
    static func maximum(_ x: UnsafePointer<Float>, count: Int, kernels: KernelSet = .active) -> Float {
        precondition(count >= 0)
        return kernels.table.pointee.maximum(x, count)
    }

    /// x[i] = exp(x[i]·scale − shift) in place; returns the sum. Eight lanes at a time, for x[i]·scale − shift ≤ 0
    /// (Cephes' expf polynomial, about 1 ulp; below −87.3 gives 0).
    static func expShifted(
        _ x: UnsafeMutablePointer<Float>, count: Int, scale: Float, shift: Float, kernels: KernelSet = .active
    ) -> Float {
        precondition(count >= 0)
        return kernels.table.pointee.exp_shifted(x, count, scale, shift)
    }

    /// log_softmax of one row into `out` (computed in Double for the sums, as the reference does in f32/f64).
    static func logSoftmax(
        _ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>, kernels: KernelSet = .active
    ) {
        precondition(count >= 0)
        kernels.table.pointee.log_softmax(x, count, out)
    }

    /// The `k` most probable of `count` logits, as (log probability, index) pairs, most probable first and the lower
    /// index first on a tie; logits of −∞ are never among them. The log probabilities are `logSoftmax`'s but for
    /// the sum of exponentials, taken in vector lanes (relative error about 2e-7 a term).
    static func logSoftmaxTop(
        _ x: UnsafePointer<Float>, count: Int, k: Int, kernels: KernelSet = .active
    ) -> [(logprob: Float, index: Int)] {
        precondition(count >= 0 && k >= 1)
        var logprobs = [Float](repeating: 0, count: k)
        var indices = [Int32](repeating: 0, count: k)
        let found = Int(kernels.table.pointee.log_softmax_top(x, count, Int32(k), &logprobs, &indices))
        return (0..<found).map { (logprobs[$0], Int(indices[$0])) }
    }
}
