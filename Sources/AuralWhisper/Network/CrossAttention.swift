/// One decoder layer's attention over a window's audio: its keys and values, projected once per window and laid out
/// per head so that a decoder step's few rows read them front to back.
///
/// Keys are stored transposed, [headWidth × audioLength] per head, so the scores of a few query rows are sums of
/// contiguous key rows scaled by single query values, with no horizontal sums; values are [audioLength × headWidth]
/// per head. Products of many rows (a prompt, word alignment) go to BLAS with the same layout.
struct CrossAttention {
    /// heads × headWidth × audioLength.
    let keys: Tensor
    /// heads × audioLength × headWidth.
    let values: Tensor
    let audioLength: Int
    let heads: Int
    let headWidth: Int

    /// Projects the encoder output [audioLength × width] with the fused K, V projection [2·width, width].
    init(encoderOutput: Tensor, projection: Linear, audioLength: Int, heads: Int) {
        let width = projection.inFeatures
        self.audioLength = audioLength
        self.heads = heads
        headWidth = width / heads
        let projected = Tensor(count: audioLength * 2 * width)
        projection.apply(encoderOutput.pointer, rows: audioLength, into: projected.pointer)
        keys = Tensor(count: audioLength * width)
        values = Tensor(count: audioLength * width)
        for h in 0..<heads {
            let headKeys = keys.pointer + h * headWidth * audioLength
            let headValues = values.pointer + h * audioLength * headWidth
            for t in 0..<audioLength {
                let row = projected.pointer + t * 2 * width + h * headWidth
                for c in 0..<headWidth { headKeys[c * audioLength + t] = row[c] }
                (headValues + t * headWidth).update(from: row + width, count: headWidth)
            }
        }
    }

    /// Floats of scratch `attend` needs for `rows` query rows.
    func scratchCount(rows: Int) -> Int { heads * rows * audioLength }

    /// output[r, h·dh ..< (h+1)·dh] = softmax(Q_h[r]·K_hᵀ / √dh) · V_h for each query row r < rows.
    /// - Parameter capture: called per head, in order, with the softmax weights [rows × audioLength].
    func attend(
        queries: UnsafePointer<Float>, queryStride: Int, rows: Int, scratch: UnsafeMutablePointer<Float>,
        output: UnsafeMutablePointer<Float>, outputStride: Int,
        capture: ((_ head: Int, _ weights: UnsafePointer<Float>) -> Void)? = nil
    ) {
        let scale = 1 / Float(headWidth).squareRoot()
        let fewRows = rows <= SkinnyGEMM.maxRows && headWidth % 16 == 0
        let length = audioLength
        func head(_ h: Int) {
            let scores = scratch + h * rows * length
            let headKeys = keys.pointer + h * headWidth * length
            let headValues = values.pointer + h * length * headWidth
            let query = queries + h * headWidth
            if fewRows {
                for r in 0..<rows {
                    Self.scores(query: query + r * queryStride, keys: headKeys, length: length, width: headWidth, into: scores + r * length)
                }
            } else {
                BLAS.gemm(
                    m: rows, n: length, k: headWidth, a: query, lda: queryStride, b: headKeys, ldb: length,
                    transposeB: false, c: scores, ldc: length)
            }
            if fewRows {  // the heads already run in parallel
                Kernels.softmaxRows(scores, rows: rows, cols: length, stride: length, scale: scale)
            } else {
                Parallel.forEachRange(rows, minimum: max(1, (1 << 16) / length)) { range in
                    Kernels.softmaxRows(scores + range.lowerBound * length, rows: range.count, cols: length, stride: length, scale: scale)
                }
            }
            capture?(h, scores)
            if fewRows {
                var r = 0
                while r < rows {
                    let group = min(4, rows - r)
                    if group == 1 {  // one row keeps all of a head's sums in registers
                        SkinnyGEMM.multiplyUntransposed(
                            m: 1, n: headWidth, k: length, a: scores + r * length, lda: length, b: headValues,
                            ldb: headWidth, c: output + r * outputStride + h * headWidth, ldc: outputStride)
                        r += 1
                        continue
                    }
                    Self.weightedValues(
                        weights: scores + r * length, rows: group, length: length, values: headValues, width: headWidth,
                        into: output + r * outputStride + h * headWidth, outputStride: outputStride)
                    r += group
                }
            } else {
                BLAS.gemm(
                    m: rows, n: headWidth, k: length, a: scores, lda: length, b: headValues, ldb: headWidth,
                    transposeB: false, c: output + h * headWidth, ldc: outputStride)
            }
        }
        if fewRows && capture == nil {
            WorkerPool.current.run(parts: heads) { head($0) }
        } else {
            for h in 0..<heads { head(h) }
        }
    }

    /// out[j] = Σ_c query[c] · keys[c, j] for j < length: 64 keys at a time in eight independent sums.
    private static func scores(
        query: UnsafePointer<Float>, keys: UnsafePointer<Float>, length: Int, width: Int, into out: UnsafeMutablePointer<Float>
    ) {
        var j = 0
        while j + 64 <= length {
            var s0 = SIMD8<Float>.zero, s1 = SIMD8<Float>.zero, s2 = SIMD8<Float>.zero, s3 = SIMD8<Float>.zero
            var s4 = SIMD8<Float>.zero, s5 = SIMD8<Float>.zero, s6 = SIMD8<Float>.zero, s7 = SIMD8<Float>.zero
            for c in 0..<width {
                let q = SIMD8<Float>(repeating: query[c])
                let row = keys + c * length + j
                s0.addProduct(q, load(row, 0)); s1.addProduct(q, load(row, 8))
                s2.addProduct(q, load(row, 16)); s3.addProduct(q, load(row, 24))
                s4.addProduct(q, load(row, 32)); s5.addProduct(q, load(row, 40))
                s6.addProduct(q, load(row, 48)); s7.addProduct(q, load(row, 56))
            }
            store(s0, out + j); store(s1, out + j + 8); store(s2, out + j + 16); store(s3, out + j + 24)
            store(s4, out + j + 32); store(s5, out + j + 40); store(s6, out + j + 48); store(s7, out + j + 56)
            j += 64
        }
        while j + 8 <= length {
            var s = SIMD8<Float>.zero
            for c in 0..<width { s.addProduct(SIMD8(repeating: query[c]), load(keys + c * length + j, 0)) }
            store(s, out + j)
            j += 8
        }
        while j < length {
            var s: Float = 0
            for c in 0..<width { s += query[c] * keys[c * length + j] }
            out[j] = s
            j += 1
        }
    }

    /// out[r, :] = Σ_j weights[r, j] · values[j, :] for up to 4 rows, 16 columns at a time: each value read once for
    /// all the rows.
    private static func weightedValues(
        weights: UnsafePointer<Float>, rows: Int, length: Int, values: UnsafePointer<Float>, width: Int,
        into out: UnsafeMutablePointer<Float>, outputStride: Int
    ) {
        // Missing rows repeat the last one and are not stored.
        let w0 = weights, w1 = weights + min(1, rows - 1) * length
        let w2 = weights + min(2, rows - 1) * length, w3 = weights + min(3, rows - 1) * length
        var column = 0
        while column < width {
            var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, b0 = SIMD8<Float>.zero, b1 = SIMD8<Float>.zero
            var c0 = SIMD8<Float>.zero, c1 = SIMD8<Float>.zero, d0 = SIMD8<Float>.zero, d1 = SIMD8<Float>.zero
            for j in 0..<length {
                let row = values + j * width + column
                let v0 = load(row, 0), v1 = load(row, 8)
                let p0 = SIMD8<Float>(repeating: w0[j]), p1 = SIMD8<Float>(repeating: w1[j])
                let p2 = SIMD8<Float>(repeating: w2[j]), p3 = SIMD8<Float>(repeating: w3[j])
                a0.addProduct(p0, v0); a1.addProduct(p0, v1)
                b0.addProduct(p1, v0); b1.addProduct(p1, v1)
                c0.addProduct(p2, v0); c1.addProduct(p2, v1)
                d0.addProduct(p3, v0); d1.addProduct(p3, v1)
            }
            store(a0, out + column); store(a1, out + column + 8)
            if rows > 1 { store(b0, out + outputStride + column); store(b1, out + outputStride + column + 8) }
            if rows > 2 { store(c0, out + 2 * outputStride + column); store(c1, out + 2 * outputStride + column + 8) }
            if rows > 3 { store(d0, out + 3 * outputStride + column); store(d1, out + 3 * outputStride + column + 8) }
            column += 16
        }
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD8<Float> {
        UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }
}
