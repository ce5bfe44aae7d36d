/// Products of a few rows of activations against a weight matrix stored [out, in] (C = A·Bᵀ with m ≤ 8): the shape
/// of every decoder step. OpenBLAS packs all of B for each such call, which costs more than the product; this reads
/// each weight once, with every row's accumulators in registers, and splits the outputs across two threads when
/// the matrix is large.
enum SkinnyGEMM {
    /// Rows handled at most.
    static let maxRows = 8

    /// c[r, o] = alpha · Σₖ a[r, k] · b[o, k] + beta · c[r, o] for r < m, o < n.
    static func multiply<Weight: SkinnyWeight>(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Weight>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        precondition(m >= 1 && m <= maxRows)
        let work = n * k * m
        let parts = work >= 1 << 16 ? min(2, WorkerPool.current.threads) : 1
        if parts == 1 {
            block(0..<n, m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
            return
        }
        WorkerPool.current.run(parts: parts) { part in
            let lower = n * part / parts
            let upper = n * (part + 1) / parts
            block(lower..<upper, m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
        }
    }

    /// c[r, :] = Σₖ a[r, k] · b[k, :] for r < m (B not transposed, [k × n] with leading dimension ldb): the
    /// attention-weighted sum of values in a decoder step.
    static func multiplyUntransposed(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        precondition(m >= 1 && m <= maxRows)
        if n == 64 {
            for r in 0..<m { weightedSum64(weights: a + r * lda, count: k, values: b, ldb: ldb, into: c + r * ldc) }
            return
        }
        let vectorEnd = n & ~7
        for r in 0..<m {
            let out = c + r * ldc
            out.update(repeating: 0, count: n)
            let weights = a + r * lda
            for j in 0..<k {
                let w = weights[j]
                if w == 0 { continue }
                let row = b + j * ldb
                let scale = SIMD8<Float>(repeating: w)
                var i = 0
                while i < vectorEnd {
                    let target = UnsafeMutableRawPointer(out + i)
                    let sum = target.loadUnaligned(as: SIMD8<Float>.self) + scale * UnsafeRawPointer(row + i).loadUnaligned(as: SIMD8<Float>.self)
                    target.storeBytes(of: sum, as: SIMD8<Float>.self)
                    i += 8
                }
                while i < n {
                    out[i] += w * row[i]
                    i += 1
                }
            }
        }
    }

    /// out[0..<64] = Σⱼ weights[j] · values[j, 0..<64], with the 64 sums held in registers (one attention head).
    private static func weightedSum64(
        weights: UnsafePointer<Float>, count: Int, values: UnsafePointer<Float>, ldb: Int, into out: UnsafeMutablePointer<Float>
    ) {
        var s0 = SIMD8<Float>.zero, s1 = SIMD8<Float>.zero, s2 = SIMD8<Float>.zero, s3 = SIMD8<Float>.zero
        var s4 = SIMD8<Float>.zero, s5 = SIMD8<Float>.zero, s6 = SIMD8<Float>.zero, s7 = SIMD8<Float>.zero
        for j in 0..<count {
            let w = SIMD8<Float>(repeating: weights[j])
            let row = values + j * ldb
            s0 += w * load(row, 0)
            s1 += w * load(row, 8)
            s2 += w * load(row, 16)
            s3 += w * load(row, 24)
            s4 += w * load(row, 32)
            s5 += w * load(row, 40)
            s6 += w * load(row, 48)
            s7 += w * load(row, 56)
        }
        let raw = UnsafeMutableRawPointer(out)
        raw.storeBytes(of: s0, toByteOffset: 0, as: SIMD8<Float>.self)
        raw.storeBytes(of: s1, toByteOffset: 32, as: SIMD8<Float>.self)
        raw.storeBytes(of: s2, toByteOffset: 64, as: SIMD8<Float>.self)
        raw.storeBytes(of: s3, toByteOffset: 96, as: SIMD8<Float>.self)
        raw.storeBytes(of: s4, toByteOffset: 128, as: SIMD8<Float>.self)
        raw.storeBytes(of: s5, toByteOffset: 160, as: SIMD8<Float>.self)
        raw.storeBytes(of: s6, toByteOffset: 192, as: SIMD8<Float>.self)
        raw.storeBytes(of: s7, toByteOffset: 224, as: SIMD8<Float>.self)
    }

    private static func block<Weight: SkinnyWeight>(
        _ outputs: Range<Int>, m: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Weight>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        // Two weight rows at a time, the activation rows in groups of 5, 4, 2 and 1, so that every accumulator stays
        // in a register and each loaded (and converted) weight vector feeds several fused multiply-adds; the weight
        // rows are read from memory once (later groups find them in L1). Five is a beam's worth of rows.
        var groups: [(first: Int, count: Int)] = []
        var r = 0
        for size in [5, 4, 2, 1] {
            while m - r >= size {
                groups.append((r, size))
                r += size
            }
        }
        func store(_ value: Float, row: Int, output: Int) {
            let target = c + row * ldc + output
            target.pointee = beta == 0 ? alpha * value : alpha * value + beta * target.pointee
        }
        var o = outputs.lowerBound
        while o < outputs.upperBound {
            let pair = o + 1 < outputs.upperBound
            let w0 = b + o * ldb
            let w1 = pair ? w0 + ldb : w0
            for group in groups {
                let x = a + group.first * lda
                var sums = (SIMD8<Float>.zero, SIMD8<Float>.zero)
                switch group.count {
                case 5: sums = dot5x2(w0, w1, x, lda, k)
                case 4: sums = dot4x2(w0, w1, x, lda, k)
                case 2: sums = dot2x2(w0, w1, x, lda, k)
                default: sums = dot1x2(w0, w1, x, k)
                }
                for i in 0..<group.count {
                    store(sums.0[i], row: group.first + i, output: o)
                    if pair { store(sums.1[i], row: group.first + i, output: o + 1) }
                }
            }
            o += 2
        }
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD8<Float> {
        UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// As `dot4x2` for five rows (lanes 5 to 7 are zero): ten sums, two weight vectors and one row vector fill 13 of
    /// the 16 AVX2 registers.
    private static func dot5x2<Weight: SkinnyWeight>(
        _ w0: UnsafePointer<Weight>, _ w1: UnsafePointer<Weight>, _ x: UnsafePointer<Float>, _ lda: Int, _ k: Int
    ) -> (SIMD8<Float>, SIMD8<Float>) {
        let x0 = x, x1 = x + lda, x2 = x + 2 * lda, x3 = x + 3 * lda, x4 = x + 4 * lda
        var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, a2 = SIMD8<Float>.zero, a3 = SIMD8<Float>.zero
        var a4 = SIMD8<Float>.zero, b0 = SIMD8<Float>.zero, b1 = SIMD8<Float>.zero, b2 = SIMD8<Float>.zero
        var b3 = SIMD8<Float>.zero, b4 = SIMD8<Float>.zero
        var i = 0
        while i + 8 <= k {
            let u = Weight.load8(w0, i), v = Weight.load8(w1, i)
            var y = load(x0, i)
            a0.addProduct(u, y); b0.addProduct(v, y)
            y = load(x1, i)
            a1.addProduct(u, y); b1.addProduct(v, y)
            y = load(x2, i)
            a2.addProduct(u, y); b2.addProduct(v, y)
            y = load(x3, i)
            a3.addProduct(u, y); b3.addProduct(v, y)
            y = load(x4, i)
            a4.addProduct(u, y); b4.addProduct(v, y)
            i += 8
        }
        var first = SIMD8<Float>(a0.sum(), a1.sum(), a2.sum(), a3.sum(), a4.sum(), 0, 0, 0)
        var second = SIMD8<Float>(b0.sum(), b1.sum(), b2.sum(), b3.sum(), b4.sum(), 0, 0, 0)
        while i < k {
            let y = SIMD8<Float>(x0[i], x1[i], x2[i], x3[i], x4[i], 0, 0, 0)
            first += w0[i].float * y
            second += w1[i].float * y
            i += 1
        }
        return (first, second)
    }

    /// Dot products of rows x, x+lda, x+2·lda, x+3·lda with w0 and w1: (row sums with w0, row sums with w1).
    private static func dot4x2<Weight: SkinnyWeight>(
        _ w0: UnsafePointer<Weight>, _ w1: UnsafePointer<Weight>, _ x: UnsafePointer<Float>, _ lda: Int, _ k: Int
    ) -> (SIMD8<Float>, SIMD8<Float>) {
        let x0 = x, x1 = x + lda, x2 = x + 2 * lda, x3 = x + 3 * lda
        var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, a2 = SIMD8<Float>.zero, a3 = SIMD8<Float>.zero
        var b0 = SIMD8<Float>.zero, b1 = SIMD8<Float>.zero, b2 = SIMD8<Float>.zero, b3 = SIMD8<Float>.zero
        var i = 0
        while i + 8 <= k {
            let u = Weight.load8(w0, i), v = Weight.load8(w1, i)
            let y0 = load(x0, i), y1 = load(x1, i), y2 = load(x2, i), y3 = load(x3, i)
            a0.addProduct(u, y0); a1.addProduct(u, y1); a2.addProduct(u, y2); a3.addProduct(u, y3)
            b0.addProduct(v, y0); b1.addProduct(v, y1); b2.addProduct(v, y2); b3.addProduct(v, y3)
            i += 8
        }
        var first = SIMD8<Float>(a0.sum(), a1.sum(), a2.sum(), a3.sum(), 0, 0, 0, 0)
        var second = SIMD8<Float>(b0.sum(), b1.sum(), b2.sum(), b3.sum(), 0, 0, 0, 0)
        while i < k {
            let y = SIMD8<Float>(x0[i], x1[i], x2[i], x3[i], 0, 0, 0, 0)
            first += w0[i].float * y
            second += w1[i].float * y
            i += 1
        }
        return (first, second)
    }

    /// As `dot4x2` for two rows (lanes 2 and 3 are zero).
    private static func dot2x2<Weight: SkinnyWeight>(
        _ w0: UnsafePointer<Weight>, _ w1: UnsafePointer<Weight>, _ x: UnsafePointer<Float>, _ lda: Int, _ k: Int
    ) -> (SIMD8<Float>, SIMD8<Float>) {
        let x0 = x, x1 = x + lda
        var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, b0 = SIMD8<Float>.zero, b1 = SIMD8<Float>.zero
        var i = 0
        while i + 8 <= k {
            let u = Weight.load8(w0, i), v = Weight.load8(w1, i)
            let y0 = load(x0, i), y1 = load(x1, i)
            a0.addProduct(u, y0); a1.addProduct(u, y1)
            b0.addProduct(v, y0); b1.addProduct(v, y1)
            i += 8
        }
        var first = SIMD8<Float>(a0.sum(), a1.sum(), 0, 0, 0, 0, 0, 0)
        var second = SIMD8<Float>(b0.sum(), b1.sum(), 0, 0, 0, 0, 0, 0)
        while i < k {
            first[0] += w0[i].float * x0[i]; first[1] += w0[i].float * x1[i]
            second[0] += w1[i].float * x0[i]; second[1] += w1[i].float * x1[i]
            i += 1
        }
        return (first, second)
    }

    /// As `dot4x2` for one row (lanes 1 to 3 are zero).
    private static func dot1x2<Weight: SkinnyWeight>(
        _ w0: UnsafePointer<Weight>, _ w1: UnsafePointer<Weight>, _ x0: UnsafePointer<Float>, _ k: Int
    ) -> (SIMD8<Float>, SIMD8<Float>) {
        var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, b0 = SIMD8<Float>.zero, b1 = SIMD8<Float>.zero
        var i = 0
        while i + 16 <= k {
            let y0 = load(x0, i), y1 = load(x0, i + 8)
            a0.addProduct(Weight.load8(w0, i), y0); a1.addProduct(Weight.load8(w0, i + 8), y1)
            b0.addProduct(Weight.load8(w1, i), y0); b1.addProduct(Weight.load8(w1, i + 8), y1)
            i += 16
        }
        var first = (a0 + a1).sum()
        var second = (b0 + b1).sum()
        while i < k {
            first += w0[i].float * x0[i]
            second += w1[i].float * x0[i]
            i += 1
        }
        var firstLanes = SIMD8<Float>.zero, secondLanes = SIMD8<Float>.zero
        firstLanes[0] = first
        secondLanes[0] = second
        return (firstLanes, secondLanes)
    }
}

/// A weight element type the skinny kernels read: Float, or Float16 converted on load (F16C on x86).
protocol SkinnyWeight: Sendable {
    /// Eight elements from p + i as Floats.
    static func load8(_ p: UnsafePointer<Self>, _ i: Int) -> SIMD8<Float>
    /// The element as a Float.
    var float: Float { get }
}

extension Float: SkinnyWeight {
    @inline(__always)
    static func load8(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD8<Float> {
        UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
    }

    var float: Float { self }
}

extension Float16: SkinnyWeight {
    @inline(__always)
    static func load8(_ p: UnsafePointer<Float16>, _ i: Int) -> SIMD8<Float> {
        SIMD8<Float>(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float16>.self))
    }

    var float: Float { Float(self) }
}
