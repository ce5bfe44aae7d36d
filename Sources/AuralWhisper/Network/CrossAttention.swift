/// One decoder layer's attention over a window's audio: its keys and values, projected once per window and laid out
/// per head so that a decoder step's few rows read them front to back.
///
/// Keys are stored transposed, [headWidth × audioLength] per head, so the scores of a few query rows are sums of
/// contiguous key rows scaled by single query values, with no horizontal sums; values are [audioLength × headWidth]
/// per head. Products of many rows (a prompt, word alignment) go to BLAS with the same layout.
///
/// With `halfPrecision` (the int8 compute type) keys and values are stored in float16 and read back as floats: a
/// decoder step reads every key and value of every layer (base: 37 MB in float32), and half the bytes take half the
/// time from memory (base, five rows, AMD EPYC: 7.2 → 3.2–3.9 ms a step on one core). Float32 keeps them in
/// float32, so its results stay those of faster-whisper's float32.
struct CrossAttention {
    /// Keys (heads × headWidth × audioLength) and values (heads × audioLength × headWidth).
    private enum Elements {
        case float(keys: Tensor, values: Tensor)
        /// IEEE binary16 bits.
        case half(keys: Storage<UInt16>, values: Storage<UInt16>)
    }

    private let elements: Elements
    let audioLength: Int
    let heads: Int
    let headWidth: Int

    /// Projects the encoder output [audioLength × width] with the fused K, V projection [2·width, width].
    /// - Parameter halfPrecision: store keys and values in float16 (rounded to nearest).
    init(encoderOutput: Tensor, projection: Linear, audioLength: Int, heads: Int, halfPrecision: Bool = false) {
        let width = projection.inFeatures
        self.audioLength = audioLength
        self.heads = heads
        headWidth = width / heads
        let projected = Tensor(uninitializedCount: audioLength * 2 * width)
        projection.apply(encoderOutput.pointer, rows: audioLength, into: projected.pointer)
        let keys = Tensor(uninitializedCount: audioLength * width)
        let values = Tensor(uninitializedCount: audioLength * width)
        Self.place(
            projected, positions: 0..<audioLength, width: width, keys: keys.pointer, values: values.pointer,
            heads: heads, length: audioLength)
        elements = halfPrecision ? .half(keys: Self.half(keys), values: Self.half(values)) : .float(keys: keys, values: values)
    }

    /// A decoder layer's attention over `encoderOutput`; the int8 compute type keeps the keys and values in float16.
    init(layer: DecoderWeights.Layer, weights: DecoderWeights, encoderOutput: Tensor, audioLength: Int) {
        self.init(
            encoderOutput: encoderOutput, projection: layer.crossKV, audioLength: audioLength, heads: weights.heads,
            halfPrecision: layer.crossKV.int8 != nil)
    }

    /// `base` with the keys and values of the positions `fresh` projected again from `encoderOutput`, whose other
    /// positions hold what `base` was projected from. The projection treats each position alone, so this equals
    /// projecting all of `encoderOutput` (bit for bit with int8 weights, whose sums are exact integers).
    init(updating base: CrossAttention, positions fresh: Range<Int>, encoderOutput: Tensor, projection: Linear) {
        let width = projection.inFeatures
        audioLength = base.audioLength
        heads = base.heads
        headWidth = base.headWidth
        let fresh = fresh.clamped(to: 0..<base.audioLength)
        let projected = Tensor(count: max(1, fresh.count) * 2 * width)
        if !fresh.isEmpty {
            projection.apply(encoderOutput.pointer + fresh.lowerBound * width, rows: fresh.count, into: projected.pointer)
        }
        switch base.elements {
        case .float(let baseKeys, let baseValues):
            let keys = Tensor(copying: baseKeys)
            let values = Tensor(copying: baseValues)
            Self.place(
                projected, positions: fresh, width: width, keys: keys.pointer, values: values.pointer, heads: heads,
                length: audioLength)
            elements = .float(keys: keys, values: values)
        case .half(let baseKeys, let baseValues):
            let keys = Storage<UInt16>(copying: baseKeys)
            let values = Storage<UInt16>(copying: baseValues)
            let halves = Storage<UInt16>(uninitializedCount: projected.count)
            KernelSet.active.table.pointee.float_to_half(projected.pointer, projected.count, halves.pointer)
            Self.place(
                halves, positions: fresh, width: width, keys: keys.pointer, values: values.pointer, heads: heads,
                length: audioLength)
            elements = .half(keys: keys, values: values)
        }
    }

    /// Writes rows of projected keys and values [fresh.count × 2·width] into the per-head layout (keys transposed,
    /// [headWidth × length] per head; values [length × headWidth] per head) at the positions `fresh`.
    private static func place<Element>(
        _ projected: Storage<Element>, positions fresh: Range<Int>, width: Int, keys: UnsafeMutablePointer<Element>,
        values: UnsafeMutablePointer<Element>, heads: Int, length: Int
    ) {
        let headWidth = width / heads
        for h in 0..<heads {
            let headKeys = keys + h * headWidth * length
            let headValues = values + h * length * headWidth
            for (row, t) in fresh.enumerated() {
                let source = projected.pointer + row * 2 * width + h * headWidth
                for c in 0..<headWidth { headKeys[c * length + t] = source[c] }
                (headValues + t * headWidth).update(from: source + width, count: headWidth)
            }
        }
    }

    private static func half(_ x: Tensor, kernels: KernelSet = .active) -> Storage<UInt16> {
        let half = Storage<UInt16>(uninitializedCount: x.count)
        kernels.table.pointee.float_to_half(x.pointer, x.count, half.pointer)
        return half
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
        let fewRows = rows <= SkinnyGEMM.maxRows && headWidth % 16 == 0
        let headSize = headWidth * audioLength
        switch elements {
        case .float(let keys, let values):
            func head(_ h: Int) {
                attendHead(
                    h, queries: queries, queryStride: queryStride, rows: rows, fewRows: fewRows,
                    keys: .float(keys.pointer + h * headSize), values: .float(values.pointer + h * headSize),
                    scratch: scratch, output: output, outputStride: outputStride, capture: capture)
            }
            if fewRows && capture == nil {
                WorkerPool.current.run(parts: heads) { head($0) }
            } else {
                for h in 0..<heads { head(h) }
            }
        case .half(let keys, let values) where fewRows:
            func head(_ h: Int) {
                attendHead(
                    h, queries: queries, queryStride: queryStride, rows: rows, fewRows: true,
                    keys: .half(keys.pointer + h * headSize), values: .half(values.pointer + h * headSize),
                    scratch: scratch, output: output, outputStride: outputStride, capture: capture)
            }
            if capture == nil {
                WorkerPool.current.run(parts: heads) { head($0) }
            } else {
                for h in 0..<heads { head(h) }
            }
        case .half(let keys, let values):
            // Many rows go to BLAS: each head's keys and values widened to floats first, one head after another.
            let widened = Tensor(count: 2 * headSize)
            let kernels = KernelSet.active
            for h in 0..<heads {
                kernels.table.pointee.half_to_float(keys.pointer + h * headSize, headSize, widened.pointer)
                kernels.table.pointee.half_to_float(values.pointer + h * headSize, headSize, widened.pointer + headSize)
                attendHead(
                    h, queries: queries, queryStride: queryStride, rows: rows, fewRows: false,
                    keys: .float(widened.pointer), values: .float(widened.pointer + headSize),
                    scratch: scratch, output: output, outputStride: outputStride, capture: capture)
            }
        }
    }

    /// One head's keys or values, where they are read.
    private enum HeadElements {
        case float(UnsafePointer<Float>)
        case half(UnsafePointer<UInt16>)
    }

    /// `attend` for head `h`: the few-rows kernels (float32 or float16), or BLAS (float32 only).
    private func attendHead(
        _ h: Int, queries: UnsafePointer<Float>, queryStride: Int, rows: Int, fewRows: Bool, keys: HeadElements,
        values: HeadElements, scratch: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>,
        outputStride: Int, capture: ((_ head: Int, _ weights: UnsafePointer<Float>) -> Void)?
    ) {
        let length = audioLength
        let scale = 1 / Float(headWidth).squareRoot()
        let scores = scratch + h * rows * length
        let query = queries + h * headWidth
        let out = output + h * headWidth
        if fewRows {
            var r = 0
            while r < rows {
                let group = min(Self.scoreRows, rows - r)
                switch keys {
                case .float(let keys):
                    Self.scores(
                        query: query + r * queryStride, queryStride: queryStride, rows: group, keys: keys,
                        length: length, width: headWidth, into: scores + r * length, outputStride: length)
                case .half(let keys):
                    Self.scores(
                        query: query + r * queryStride, queryStride: queryStride, rows: group, halfKeys: keys,
                        length: length, width: headWidth, into: scores + r * length, outputStride: length)
                }
                r += group
            }
            Kernels.softmaxRows(scores, rows: rows, cols: length, stride: length, scale: scale)  // heads run in parallel
        } else {
            guard case .float(let keys) = keys else { preconditionFailure("BLAS takes float keys") }
            BLAS.gemm(
                m: rows, n: length, k: headWidth, a: query, lda: queryStride, b: keys, ldb: length,
                transposeB: false, c: scores, ldc: length)
            Parallel.forEachRange(rows, minimum: max(1, (1 << 16) / length)) { range in
                Kernels.softmaxRows(scores + range.lowerBound * length, rows: range.count, cols: length, stride: length, scale: scale)
            }
        }
        capture?(h, scores)
        if fewRows {
            var r = 0
            while r < rows {
                let group = min(Self.scoreRows, rows - r)
                switch values {
                case .float(let values) where group == 1:  // one row keeps all of a head's sums in registers
                    SkinnyGEMM.multiplyUntransposed(
                        m: 1, n: headWidth, k: length, a: scores + r * length, lda: length, b: values,
                        ldb: headWidth, c: out + r * outputStride, ldc: outputStride)
                case .float(let values):
                    Self.weightedValues(
                        weights: scores + r * length, rows: group, length: length, values: values, width: headWidth,
                        into: out + r * outputStride, outputStride: outputStride)
                case .half(let values):
                    Self.weightedValues(
                        weights: scores + r * length, rows: group, length: length, halfValues: values, width: headWidth,
                        into: out + r * outputStride, outputStride: outputStride)
                }
                r += group
            }
        } else {
            guard case .float(let values) = values else { preconditionFailure("BLAS takes float values") }
            BLAS.gemm(
                m: rows, n: headWidth, k: length, a: scores, lda: length, b: values, ldb: headWidth,
                transposeB: false, c: out, ldc: outputStride)
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

    /// `scores` with the keys in float16 (IEEE binary16 bits): the same sums of the same floats once read.
    static func scores(
        query: UnsafePointer<Float>, queryStride: Int, rows: Int, halfKeys keys: UnsafePointer<UInt16>, length: Int,
        width: Int, into out: UnsafeMutablePointer<Float>, outputStride: Int, kernels: KernelSet = .active
    ) {
        precondition(rows >= 1 && rows <= scoreRows && length >= 0 && width >= 0)
        precondition(rows == 1 || (queryStride >= width && outputStride >= length))
        kernels.table.pointee.attention_scores_f16(query, queryStride, Int32(rows), keys, length, width, out, outputStride)
    }

    /// `weightedValues` with the values in float16 (IEEE binary16 bits): the same sums of the same floats once read.
    static func weightedValues(
        weights: UnsafePointer<Float>, rows: Int, length: Int, halfValues values: UnsafePointer<UInt16>, width: Int,
        into out: UnsafeMutablePointer<Float>, outputStride: Int, kernels: KernelSet = .active
    ) {
        precondition(rows >= 1 && rows <= scoreRows && length >= 0 && width % 16 == 0 && (rows == 1 || outputStride >= width))
        kernels.table.pointee.attention_values_f16(weights, Int32(rows), length, values, width, out, outputStride)
    }
}
