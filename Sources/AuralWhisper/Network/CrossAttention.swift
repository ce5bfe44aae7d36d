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
                var r = 0
                while r < rows {
                    let group = min(Self.scoreRows, rows - r)
                    Self.scores(
                        query: query + r * queryStride, queryStride: queryStride, rows: group, keys: headKeys,
                        length: length, width: headWidth, into: scores + r * length, outputStride: length)
                    r += group
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
                    let group = min(Self.scoreRows, rows - r)
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

    /// Query rows the scores and weighted-values kernels take at once (a beam of five reads each head's keys and
    /// values once).
    static let scoreRows = 5

    /// out[r, j] = Σ_c query[r, c] · keys[c, j] for r < rows (1…5), j < length: each key read once for all the rows,
    /// and each row's scores the same bits as alone (C kernel).
    static func scores(
        query: UnsafePointer<Float>, queryStride: Int, rows: Int, keys: UnsafePointer<Float>, length: Int, width: Int,
        into out: UnsafeMutablePointer<Float>, outputStride: Int, kernels: KernelSet = .active
    ) {
        precondition(rows >= 1 && rows <= scoreRows && length >= 0 && width >= 0)
        precondition(rows == 1 || (queryStride >= width && outputStride >= length))
        kernels.table.pointee.attention_scores(query, queryStride, Int32(rows), keys, length, width, out, outputStride)
    }

    /// out[r, :] = Σ_j weights[r, j] · values[j, :] for up to 5 rows (weights `length` apart), a block of columns at
    /// a time: each value read once for all the rows, and each row's outputs the same bits as alone (C kernel).
    static func weightedValues(
        weights: UnsafePointer<Float>, rows: Int, length: Int, values: UnsafePointer<Float>, width: Int,
        into out: UnsafeMutablePointer<Float>, outputStride: Int, kernels: KernelSet = .active
    ) {
        precondition(rows >= 1 && rows <= scoreRows && length >= 0 && width % 16 == 0 && (rows == 1 || outputStride >= width))
        kernels.table.pointee.attention_values(weights, Int32(rows), length, values, width, out, outputStride)
    }
}
