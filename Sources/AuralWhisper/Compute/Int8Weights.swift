import CKernels

/// A weight matrix [out, in] in int8 with one step per output row (the float one unit stands for), as CTranslate2
/// quantizes it: step = max|row| / 127, value = row / step rounded to nearest even. The int8 compute type keeps only
/// these (a quarter of float32's bytes); `Int8GEMM` multiplies by them.
struct Int8Weights: Sendable {
    let values: ByteTensor
    /// One step per output row.
    let steps: Tensor
    /// Σ of each output row's values: the VNNI kernel and oneDNN work with activations offset by 128, and
    /// −128·Σ takes the offset back out.
    let rowSums: Storage<Int32>
    let outFeatures: Int
    let inFeatures: Int

    /// Quantizes float weights [out × in] row by row (CTranslate2's rule, so the values equal those CTranslate2
    /// computes when it loads a float folder with `compute_type="int8"`).
    init(quantizing weights: UnsafePointer<Float>, outFeatures: Int, inFeatures: Int, kernels: KernelSet = .active) {
        self.init(outFeatures: outFeatures, inFeatures: inFeatures, kernels: kernels) { rows, out in
            out.update(from: weights + rows.lowerBound * inFeatures, count: rows.count * inFeatures)
        }
    }

    /// Quantizes float weights that `readRows` delivers a block of rows at a time (rows, a buffer of rows × in floats
    /// to fill), so that a whole float copy of a large matrix never exists.
    init(
        outFeatures: Int, inFeatures: Int, kernels: KernelSet = .active,
        readRows: (Range<Int>, UnsafeMutablePointer<Float>) throws -> Void
    ) rethrows {
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
        values = ByteTensor(count: outFeatures * inFeatures)
        steps = Tensor(count: outFeatures)
        let block = max(1, min(outFeatures, (1 << 16) / max(1, inFeatures)))
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * inFeatures)
        defer { buffer.deallocate() }
        for first in stride(from: 0, to: outFeatures, by: block) {
            let rows = first..<min(outFeatures, first + block)
            try readRows(rows, buffer)
            kernels.table.pointee.quantize_rows(
                buffer, rows.count, inFeatures, inFeatures, values.pointer + first * inFeatures, inFeatures,
                steps.pointer + first, 127, 0)
        }
        rowSums = Self.sums(values, outFeatures: outFeatures, inFeatures: inFeatures)
    }

    /// Weights stored quantized: `values` [out × in] and CTranslate2's `weight_scale` (127 / max|row|, one per row).
    /// A stored −128 (which CTranslate2 never writes) becomes −127, the range the kernels rely on.
    init(values stored: UnsafeRawBufferPointer, scales: [Float], outFeatures: Int, inFeatures: Int) {
        precondition(stored.count == outFeatures * inFeatures && scales.count == outFeatures)
        self.outFeatures = outFeatures
        self.inFeatures = inFeatures
        values = ByteTensor(count: outFeatures * inFeatures)
        for i in 0..<stored.count { values.pointer[i] = max(-127, Int8(bitPattern: stored[i])) }
        steps = Tensor(scales.map { $0 > 0 ? 1 / $0 : 0 })
        rowSums = Self.sums(values, outFeatures: outFeatures, inFeatures: inFeatures)
    }

    /// Row `row` as floats (value × step): an embedding lookup.
    func dequantize(row: Int, into out: UnsafeMutablePointer<Float>) {
        let source = values.pointer + row * inFeatures
        let step = steps[row]
        for i in 0..<inFeatures { out[i] = Float(source[i]) * step }
    }

    private static func sums(_ values: ByteTensor, outFeatures: Int, inFeatures: Int) -> Storage<Int32> {
        let sums = Storage<Int32>(count: outFeatures)
        for o in 0..<outFeatures {
            let row = values.pointer + o * inFeatures
            var total: Int32 = 0
            for i in 0..<inFeatures { total &+= Int32(row[i]) }  // at most 127 × inFeatures: no overflow
            sums[o] = total
        }
        return sums
    }
}
