import CKernels

/// y = x·Wᵀ with W in int8 (`Int8Weights`): the int8 compute type's products, as CTranslate2 computes them. Each
/// row of x is quantized on the fly with its own step, the integer products are summed exactly in int32, and each
/// sum is scaled back by the row's and the output's steps.
///
/// A few rows (a decoder step, a beam) go to the C kernel `skinny_i8`, or its AVX-512 VNNI form where the CPU has
/// it, with the outputs split across two threads when the matrix is large. More rows (the encoder, the cross-attention
/// keys and values, a prompt) go to oneDNN's u8·s8 product, the rows split across the `WorkerPool`.
///
/// oneDNN's product is exact only with VNNI (`vpdpbusd` sums into 32 bits). Without it (AVX2, or AVX-512 before
/// Cascade Lake) oneDNN multiplies with `vpmaddubsw`, whose 16-bit pair sums saturate when an activation byte near
/// 255 meets a large weight: 4,093 of 4,096 sums of random 8-bit rows came out wrong, real weights far fewer. The
/// many-row products keep 8-bit activations offset by 128 there too, which is CTranslate2's arithmetic on the same
/// CPUs (oneDNN or MKL, with the same instruction). Exact alternatives were measured and dropped
/// (`docs/benchmarks.md`, 2026-12-06 18:00): 7-bit activations cost 1–2 points of word error rate, and splitting
/// each activation into two products that cannot saturate cost up to 40 % more time on the encoder.
enum Int8GEMM {
    /// Whether this CPU runs the VNNI kernel (avx512_vnni besides the AVX-512 level).
    static let usesVNNI: Bool = {
        #if arch(x86_64)
            KernelSet.active.level == .avx512 && CPUFeatures.current.flags.contains("avx512_vnni")
        #else
            false
        #endif
    }()

    /// Whether products with `kernels` run the VNNI kernel (a test may pick a lower level than the CPU's).
    private static func usesVNNI(_ kernels: KernelSet) -> Bool { usesVNNI && kernels.level == .avx512 }

    /// y[rows × outputs.count] = x[rows × in]·W[outputs]ᵀ (+ y with `accumulate`) (+ bias[outputs] when given).
    static func multiply(
        _ x: UnsafePointer<Float>, rows: Int, weights w: Int8Weights, outputs: Range<Int>, bias: UnsafePointer<Float>?,
        into y: UnsafeMutablePointer<Float>, accumulate: Bool, kernels: KernelSet = .active
    ) {
        if rows <= SkinnyGEMM.maxRows {
            multiplySkinny(x, rows: rows, weights: w, outputs: outputs, into: y, accumulate: accumulate, kernels: kernels)
            if let bias { Kernels.addBias(y, rows: rows, cols: outputs.count, bias: bias) }
        } else {
            multiplyLarge(x, rows: rows, weights: w, outputs: outputs, bias: bias, into: y, accumulate: accumulate, kernels: kernels)
        }
    }

    private static func multiplySkinny(
        _ x: UnsafePointer<Float>, rows: Int, weights w: Int8Weights, outputs: Range<Int>,
        into y: UnsafeMutablePointer<Float>, accumulate: Bool, kernels: KernelSet
    ) {
        let k = w.inFeatures
        let n = outputs.count
        let vnni = usesVNNI(kernels)
        let quantized = UnsafeMutablePointer<Int8>.allocate(capacity: rows * k)
        let steps = UnsafeMutablePointer<Float>.allocate(capacity: rows)
        defer {
            quantized.deallocate()
            steps.deallocate()
        }
        kernels.table.pointee.quantize_rows(x, rows, k, k, quantized, k, steps, 127, vnni ? 128 : 0)
        let b = w.values.pointer + outputs.lowerBound * k
        let bSteps = w.steps.pointer + outputs.lowerBound
        let bSums = w.rowSums.pointer + outputs.lowerBound
        let beta: Float = accumulate ? 1 : 0
        func run(_ part: Range<Int>) {
            #if arch(x86_64)
                if vnni {
                    quantized.withMemoryRebound(to: UInt8.self, capacity: rows * k) { unsigned in
                        ck_skinny_i8_vnni(
                            part.lowerBound, part.upperBound, Int32(rows), k, unsigned, k, steps, b, k, bSteps, bSums, y,
                            n, 1, beta)
                    }
                    return
                }
            #endif
            kernels.table.pointee.skinny_i8(
                part.lowerBound, part.upperBound, Int32(rows), k, quantized, k, steps, b, k, bSteps, bSums, y, n, 1, beta)
        }
        let parts = n * k * rows >= 1 << 17 ? min(2, WorkerPool.current.threads) : 1
        if parts == 1 {
            run(0..<n)
            return
        }
        WorkerPool.current.run(parts: parts) { part in
            run((n * part / parts)..<(n * (part + 1) / parts))
        }
    }

    /// Rows per oneDNN call in a many-row product.
    private static let blockRows = 256

    /// Splits `rows` over the pool and each part into blocks of at most `blockRows` rows, calling `body` with the
    /// block's first row and row count.
    private static func forEachBlock(rows: Int, _ body: (_ lower: Int, _ count: Int) -> Void) {
        let parts = rows >= 64 ? min(WorkerPool.current.threads, rows / 32) : 1
        WorkerPool.current.run(parts: parts) { part in
            let partRows = (rows * part / parts)..<(rows * (part + 1) / parts)
            for lower in stride(from: partRows.lowerBound, to: partRows.upperBound, by: blockRows) {
                body(lower, min(blockRows, partRows.upperBound - lower))
            }
        }
    }

    private static func multiplyLarge(
        _ x: UnsafePointer<Float>, rows: Int, weights w: Int8Weights, outputs: Range<Int>, bias: UnsafePointer<Float>?,
        into y: UnsafeMutablePointer<Float>, accumulate: Bool, kernels: KernelSet
    ) {
        let oneDNN: OneDNN
        switch OneDNN.loaded {
        case .success(let library): oneDNN = library
        case .failure(let error): fatalError("oneDNN is not available: \(error.failureReason ?? "")")
        }
        let k = w.inFeatures
        let n = outputs.count
        let b = w.values.pointer + outputs.lowerBound * k
        let bSteps = w.steps.pointer + outputs.lowerBound
        let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: n)
        defer { offsets.deallocate() }
        for o in 0..<n { offsets[o] = -128 * w.rowSums[outputs.lowerBound + o] }
        forEachBlock(rows: rows) { lower, count in
            let quantized = UnsafeMutablePointer<UInt8>.allocate(capacity: count * k)
            let steps = UnsafeMutablePointer<Float>.allocate(capacity: count)
            let sums = UnsafeMutablePointer<Int32>.allocate(capacity: count * n)
            defer {
                quantized.deallocate()
                steps.deallocate()
                sums.deallocate()
            }
            quantized.withMemoryRebound(to: Int8.self, capacity: count * k) { signed in
                kernels.table.pointee.quantize_rows(x + lower * k, count, k, k, signed, k, steps, 127, 128)
            }
            let ok = oneDNN.multiply(
                rows: count, n: n, k: k, a: quantized, lda: k, b: b, ldb: k, columnOffsets: offsets, c: sums, ldc: n)
            precondition(ok, "oneDNN's int8 product failed on a [\(count) × \(k)]·[\(n) × \(k)]ᵀ product")
            kernels.table.pointee.dequantize_rows(sums, count, n, n, steps, bSteps, bias, y + lower * n, n, accumulate ? 1 : 0)
        }
    }
}
