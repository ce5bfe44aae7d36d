/// A dense layer y = x·Wᵀ + b with W stored [out, in] row-major, as CTranslate2 writes it.
struct Linear: Sendable {
    let weight: Tensor
    /// The same weights in float16 as the file stores them, for products of a few rows (decoder steps);
    /// nil for layers that only run on many rows, or when the file is not float16.
    let halfWeight: HalfTensor?
    let bias: Tensor?
    let outFeatures: Int
    let inFeatures: Int

    init(weight: Tensor, bias: Tensor?, outFeatures: Int, inFeatures: Int) {
        self.weight = weight
        halfWeight = nil
        self.bias = bias
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
    }

    /// - Parameter keepHalf: also keep the float16 weights for few-row products (decoder layers).
    init(_ file: ModelFile, _ prefix: String, bias hasBias: Bool = true, keepHalf: Bool = false) throws {
        let shape = try file.shape(prefix + "/weight")
        guard shape.count == 2 else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "\(prefix)/weight has rank \(shape.count), expected 2")
        }
        outFeatures = shape[0]
        inFeatures = shape[1]
        weight = Tensor(try file.floats(prefix + "/weight"))
        halfWeight = keepHalf ? try file.halves(prefix + "/weight") : nil
        bias = hasBias ? Tensor(try file.floats(prefix + "/bias", shape: [outFeatures])) : nil
    }

    /// y[rows × out] = x[rows × in]·Wᵀ + b; with `accumulate`, adds to y instead (residual connections).
    func apply(_ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>, accumulate: Bool = false) {
        apply(x, rows: rows, outputs: 0..<outFeatures, into: y, accumulate: accumulate)
    }

    /// Like `apply`, over the rows `outputs` of W only (a slice of a fused projection, such as K and V of QKV).
    func apply(
        _ x: UnsafePointer<Float>, rows: Int, outputs: Range<Int>, into y: UnsafeMutablePointer<Float>,
        accumulate: Bool = false
    ) {
        let n = outputs.count
        if rows <= SkinnyGEMM.maxRows, let halfWeight {
            SkinnyGEMM.multiply(
                m: rows, n: n, k: inFeatures, a: x, lda: inFeatures, b: halfWeight.pointer + outputs.lowerBound * inFeatures,
                ldb: inFeatures, c: y, ldc: n, alpha: 1, beta: accumulate ? 1 : 0)
        } else if rows == 1 {
            BLAS.gemv(
                m: n, n: inFeatures, a: weight.pointer + outputs.lowerBound * inFeatures, lda: inFeatures, x: x, y: y,
                beta: accumulate ? 1 : 0)
        } else {
            BLAS.gemm(
            m: rows, n: n, k: inFeatures, a: x, lda: inFeatures,
            b: weight.pointer + outputs.lowerBound * inFeatures, ldb: inFeatures, transposeB: true,
            c: y, ldc: n, beta: accumulate ? 1 : 0)
        }
        if let bias { Kernels.addBias(y, rows: rows, cols: n, bias: bias.pointer + outputs.lowerBound) }
    }
}

/// Layer normalisation weights (eps 1e-5).
struct LayerNorm: Sendable {
    let gamma: Tensor
    let beta: Tensor

    init(_ file: ModelFile, _ prefix: String, size: Int) throws {
        gamma = Tensor(try file.floats(prefix + "/gamma", shape: [size]))
        beta = Tensor(try file.floats(prefix + "/beta", shape: [size]))
    }

    func apply(_ x: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>) {
        Kernels.layerNorm(x, rows: rows, cols: gamma.count, gamma: gamma.pointer, beta: beta.pointer, into: y)
    }
}
