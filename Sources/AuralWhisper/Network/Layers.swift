/// A dense layer y = x·Wᵀ + b with W stored [out, in] row-major, as CTranslate2 writes it, in the form the compute
/// type multiplies: float32 (with a float16 copy for products of a few rows), or int8 (`Int8Weights`) alone.
struct Linear: Sendable {
    /// The float32 weights; nil with the int8 compute type.
    let weight: Tensor?
    /// The same weights in float16 as the file stores them, for products of a few rows (decoder steps);
    /// nil for layers that only run on many rows, when the file is not float16, or with int8.
    let halfWeight: HalfTensor?
    /// The int8 weights (the int8 compute type); nil with float32.
    let int8: Int8Weights?
    let bias: Tensor?
    let outFeatures: Int
    let inFeatures: Int

    init(weight: Tensor, bias: Tensor?, outFeatures: Int, inFeatures: Int) {
        self.weight = weight
        halfWeight = nil
        int8 = nil
        self.bias = bias
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
    }

    /// - Parameters:
    ///   - keepHalf: with float32, also keep the float16 weights for few-row products (decoder layers).
    ///   - computeType: `.float32` or `.int8` (resolved); int8 takes the file's int8 weights as stored, or
    ///     quantizes float ones.
    init(
        _ file: ModelFile, _ prefix: String, bias hasBias: Bool = true, keepHalf: Bool = false,
        computeType: ComputeType = .float32
    ) throws {
        let name = prefix + "/weight"
        let shape = try file.shape(name)
        guard shape.count == 2 else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "\(name) has rank \(shape.count), expected 2")
        }
        outFeatures = shape[0]
        inFeatures = shape[1]
        if computeType == .int8 {
            weight = nil
            halfWeight = nil
            int8 = try file.quantizedWeights(name)
        } else {
            weight = Tensor(try file.floats(name))
            halfWeight = keepHalf ? try file.halves(name) : nil
            int8 = nil
        }
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
        if let int8 {
            Int8GEMM.multiply(
                x, rows: rows, weights: int8, outputs: outputs, bias: bias.map { $0.pointer + outputs.lowerBound },
                into: y, accumulate: accumulate)
            return
        }
        guard let weight else { preconditionFailure("a Linear holds float32 or int8 weights") }
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

    /// Row `row` of W as floats (an embedding lookup, when W is an embedding table).
    func row(_ row: Int, into out: UnsafeMutablePointer<Float>) {
        if let int8 {
            int8.dequantize(row: row, into: out)
        } else if let weight {
            out.update(from: weight.pointer + row * inFeatures, count: inFeatures)
        }
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
