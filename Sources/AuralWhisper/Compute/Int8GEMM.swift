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
/// Cascade Lake) oneDNN multiplies with `vpmaddubsw`, whose 16-bit pair sums saturate for unsigned bytes above 128:
/// measured, 4,093 of 4,096 sums of random 8-bit rows came out wrong. There the many-row products quantize the
/// activations to 7 bits (±63, offset 64), which cannot saturate, at the cost of one bit of activation precision.
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
        // 8-bit activations offset by 128 with VNNI, 7-bit ones offset by 64 without (see above).
        let (limit, offset): (Int32, Int32) = usesVNNI(kernels) ? (127, 128) : (63, 64)
        for o in 0..<n { offsets[o] = -offset * w.rowSums[outputs.lowerBound + o] }
        let parts = rows >= 64 ? min(WorkerPool.current.threads, rows / 32) : 1
        WorkerPool.current.run(parts: parts) { part in
            let partRows = (rows * part / parts)..<(rows * (part + 1) / parts)
            // A block of rows at a time, so that the int32 sums stay small (a few hundred kilobytes, not megabytes).
            let block = min(partRows.count, blockRows)
            let quantized = UnsafeMutablePointer<UInt8>.allocate(capacity: block * k)
            let steps = UnsafeMutablePointer<Float>.allocate(capacity: block)
            let sums = UnsafeMutablePointer<Int32>.allocate(capacity: block * n)
            defer {
                quantized.deallocate()
                steps.deallocate()
                sums.deallocate()
            }
            for lower in stride(from: partRows.lowerBound, to: partRows.upperBound, by: block) {
                let count = min(block, partRows.upperBound - lower)
                quantized.withMemoryRebound(to: Int8.self, capacity: count * k) { signed in
                    kernels.table.pointee.quantize_rows(x + lower * k, count, k, k, signed, k, steps, limit, offset)
                }
                let ok = oneDNN.multiply(
                    rows: count, n: n, k: k, a: quantized, lda: k, b: b, ldb: k, columnOffsets: offsets, c: sums, ldc: n)
                precondition(ok, "oneDNN's int8 product failed on a [\(count) × \(k)]·[\(n) × \(k)]ᵀ product")
                kernels.table.pointee.dequantize_rows(
                    sums, count, n, n, steps, bSteps, bias, y + lower * n, n, accumulate ? 1 : 0)
            }
        }
    }
}
