import Dispatch

/// Products of a few rows of activations against a weight matrix stored [out, in] (C = A·Bᵀ with m ≤ 8): the shape
/// of every decoder step. OpenBLAS packs all of B for each such call, which costs more than the product; this reads
/// each weight once, with every row's accumulators in registers, and splits the outputs across two threads when
/// the matrix is large.
enum SkinnyGEMM {
    /// Rows handled at most.
    static let maxRows = 8

    /// c[r, o] = alpha · Σₖ a[r, k] · b[o, k] + beta · c[r, o] for r < m, o < n.
    static func multiply(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        precondition(m >= 1 && m <= maxRows)
        let work = n * k * m
        let parts = work >= 1 << 20 ? 2 : 1
        if parts == 1 {
            block(0..<n, m: m, k: k, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc, alpha: alpha, beta: beta)
            return
        }
        let a = SendablePointer(a), b = SendablePointer(b), c = SendableMutablePointer(c)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let lower = n * part / parts
            let upper = n * (part + 1) / parts
            block(lower..<upper, m: m, k: k, a: a.pointer, lda: lda, b: b.pointer, ldb: ldb, c: c.pointer, ldc: ldc, alpha: alpha, beta: beta)
        }
    }

    /// c[r, :] = Σₖ a[r, k] · b[k, :] for r < m (B not transposed, [k × n] with leading dimension ldb): the
    /// attention-weighted sum of values in a decoder step.
    static func multiplyUntransposed(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        precondition(m >= 1 && m <= maxRows)
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

    private static func block(
        _ outputs: Range<Int>, m: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, alpha: Float, beta: Float
    ) {
        let vectorEnd = k & ~7
        withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: maxRows) { acc in
            for o in outputs {
                let row = b + o * ldb
                for r in 0..<m { acc[r] = .zero }
                var i = 0
                while i < vectorEnd {
                    let w = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD8<Float>.self)
                    for r in 0..<m {
                        acc[r] += w * UnsafeRawPointer(a + r * lda + i).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    i += 8
                }
                for r in 0..<m {
                    var sum = acc[r].sum()
                    let x = a + r * lda
                    for j in vectorEnd..<k { sum += x[j] * row[j] }
                    let target = c + r * ldc + o
                    target.pointee = beta == 0 ? alpha * sum : alpha * sum + beta * target.pointee
                }
            }
        }
    }
}

/// A pointer handed to the worker threads of one `concurrentPerform`, which finishes before the caller returns.
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafePointer<Float>
    init(_ pointer: UnsafePointer<Float>) { self.pointer = pointer }
}

/// A mutable pointer handed to workers that write disjoint parts of it.
struct SendableMutablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    init(_ pointer: UnsafeMutablePointer<Float>) { self.pointer = pointer }
}
