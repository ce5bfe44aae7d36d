import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

/// The C kernels (`CKernels`) of every level this CPU has, against Double references on odd shapes.
///
/// Products are held to Higham's worst-case bound for a dot product in any summation order, fused or not:
/// |computed − exact| ≤ γₖ·Σ|aᵢbᵢ| with γₖ ≈ k·2⁻²⁴. The tests allow (k + 4)·2⁻²³, twice that plus a few roundings
/// for alpha, beta and the store, so they cannot fail on a correct kernel and do fail on a wrong lane or row
/// (which errs by a whole term, far above the bound).
@Suite("C kernels", .heavyWork)
struct KernelTests {
    /// The levels this CPU runs (with `AURALKIT_CPU_LEVEL` lowering them, as it does for the engine).
    static let levels = CPUFeatures.Level.allCases.filter { $0 <= CPUFeatures.current.level }

    static func random(_ count: Int, seed: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
        var generator = SplitMix64(seed: UInt64(seed))
        return (0..<count).map { _ in Float.random(in: range, using: &generator) }
    }

    /// Allowed error of a k-term dot product whose terms' magnitudes sum to `magnitude` (see the suite's note).
    static func productBound(k: Int, magnitude: Double, result: Double) -> Double {
        Double(k + 4) * Double(Float.ulpOfOne) * magnitude + 4 * Double(Float(result).ulp)
    }

    @Test("each level's table is the build for that level")
    func tables() {
        for level in Self.levels {
            #if arch(x86_64)
                #expect(KernelSet(level: level).level == level)
            #else
                #expect(KernelSet(level: level).level == .baseline)
            #endif
        }
        #expect(KernelSet.active.level <= CPUFeatures.current.level)
    }

    @Test("products of 1 to 8 rows against float32 and float16 weights [out, in]", arguments: levels, 1...8)
    func skinnyProducts(level: CPUFeatures.Level, m: Int) {
        let kernels = KernelSet(level: level)
        for (n, k) in [(13, 37), (1, 5), (6, 1), (33, 200)] {  // k not a multiple of 16 (nor 8, except 200), n odd
            let lda = k + 3, ldb = k + 1, ldc = n + 2
            let a = Self.random(m * lda, seed: m * 7 + k)
            let b32 = Self.random(n * ldb, seed: n * 11 + k)
            let b16 = b32.map { Float16($0) }  // the reference reads the same, exactly converted, values
            let start = Self.random(m * ldc, seed: 3)
            for (alpha, beta) in [(Float(1), Float(0)), (0.5, 1), (-2, 0.25)] {
                var c32 = start, c16 = start
                SkinnyGEMM.multiply(
                    m: m, n: n, k: k, a: a, lda: lda, b: b32, ldb: ldb, c: &c32, ldc: ldc, alpha: alpha, beta: beta,
                    kernels: kernels)
                SkinnyGEMM.multiply(
                    m: m, n: n, k: k, a: a, lda: lda, b: b16, ldb: ldb, c: &c16, ldc: ldc, alpha: alpha, beta: beta,
                    kernels: kernels)
                for (weights, c, type) in [(b32, c32, "float32"), (b16.map(Float.init), c16, "float16")] {
                    for r in 0..<m {
                        for o in 0..<n {
                            var exact = 0.0, magnitude = 0.0
                            for p in 0..<k {
                                let term = Double(a[r * lda + p]) * Double(weights[o * ldb + p])
                                exact += term
                                magnitude += abs(term)
                            }
                            let expected = Double(alpha) * exact + Double(beta) * Double(start[r * ldc + o])
                            let bound = Self.productBound(
                                k: k, magnitude: abs(Double(alpha)) * magnitude + abs(Double(beta * start[r * ldc + o])),
                                result: expected)
                            #expect(abs(Double(c[r * ldc + o]) - expected) <= bound, "\(type) n \(n) k \(k) row \(r) output \(o)")
                        }
                        // Columns past n are never written.
                        for o in n..<ldc { #expect(c[r * ldc + o] == start[r * ldc + o]) }
                    }
                }
            }
        }
    }

    @Test("the untransposed weighted sum, the 64-wide head and other widths", arguments: levels, 1...8)
    func weightedSums(level: CPUFeatures.Level, m: Int) {
        let kernels = KernelSet(level: level)
        for (n, k) in [(64, 37), (64, 1), (13, 29), (40, 3)] {
            let lda = k + 2, ldb = n + 3, ldc = n + 5
            let a = Self.random(m * lda, seed: m + n).enumerated().map { $0.offset % 5 == 0 ? 0 : $0.element }  // zeros are skipped
            let b = Self.random(k * ldb, seed: k)
            var c = [Float](repeating: 9, count: m * ldc)
            SkinnyGEMM.multiplyUntransposed(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, c: &c, ldc: ldc, kernels: kernels)
            for r in 0..<m {
                for j in 0..<n {
                    var exact = 0.0, magnitude = 0.0
                    for p in 0..<k {
                        let term = Double(a[r * lda + p]) * Double(b[p * ldb + j])
                        exact += term
                        magnitude += abs(term)
                    }
                    let bound = Self.productBound(k: k, magnitude: magnitude, result: exact)
                    #expect(abs(Double(c[r * ldc + j]) - exact) <= bound, "n \(n) k \(k) row \(r) column \(j)")
                }
                for j in n..<ldc { #expect(c[r * ldc + j] == 9) }
            }
        }
    }

    /// Scores and weighted values of up to five rows at once; each row's results are also the same bits as that row
    /// alone: every output is the same fused sums in the same order whatever the group, so within a group of up to
    /// five a row's results do not depend on which rows come with it.
    @Test("cross-attention scores and weighted values of a few rows", arguments: levels, 1...5)
    func crossAttention(level: CPUFeatures.Level, rows: Int) {
        let kernels = KernelSet(level: level)
        let width = 64
        for length in [1, 7, 75, 203] {  // below 8, below 32, and neither multiple of 8
            let queryStride = width + 3
            let query = Self.random(rows * queryStride, seed: length)
            let keys = Self.random(width * length, seed: length + 1)  // [width × length]
            let scoreStride = length + 5
            var scores = [Float](repeating: 7, count: rows * scoreStride)
            CrossAttention.scores(
                query: query, queryStride: queryStride, rows: rows, keys: keys, length: length, width: width,
                into: &scores, outputStride: scoreStride, kernels: kernels)
            for r in 0..<rows {
                var alone = [Float](repeating: 0, count: length)
                query.withUnsafeBufferPointer { q in
                    CrossAttention.scores(
                        query: q.baseAddress! + r * queryStride, queryStride: queryStride, rows: 1, keys: keys,
                        length: length, width: width, into: &alone, outputStride: length, kernels: kernels)
                }
                for j in 0..<length {
                    var exact = 0.0, magnitude = 0.0
                    for c in 0..<width {
                        let term = Double(query[r * queryStride + c]) * Double(keys[c * length + j])
                        exact += term
                        magnitude += abs(term)
                    }
                    let score = scores[r * scoreStride + j]
                    #expect(abs(Double(score) - exact) <= Self.productBound(k: width, magnitude: magnitude, result: exact))
                    #expect(score.bitPattern == alone[j].bitPattern, "row \(r) of \(rows), key \(j)")
                }
                for j in length..<scoreStride { #expect(scores[r * scoreStride + j] == 7) }
            }
            let weights = Self.random(rows * length, seed: length + 2, in: 0...1)
            let values = Self.random(length * width, seed: length + 3)  // [length × width]
            let stride = width + 16
            var out = [Float](repeating: 5, count: rows * stride)
            CrossAttention.weightedValues(
                weights: weights, rows: rows, length: length, values: values, width: width, into: &out, outputStride: stride,
                kernels: kernels)
            for r in 0..<rows {
                var alone = [Float](repeating: 0, count: width)
                weights.withUnsafeBufferPointer { w in
                    CrossAttention.weightedValues(
                        weights: w.baseAddress! + r * length, rows: 1, length: length, values: values, width: width,
                        into: &alone, outputStride: width, kernels: kernels)
                }
                for c in 0..<width {
                    #expect(out[r * stride + c].bitPattern == alone[c].bitPattern, "row \(r) of \(rows), column \(c)")
                    var exact = 0.0, magnitude = 0.0
                    for j in 0..<length {
                        let term = Double(weights[r * length + j]) * Double(values[j * width + c])
                        exact += term
                        magnitude += abs(term)
                    }
                    #expect(abs(Double(out[r * stride + c]) - exact) <= Self.productBound(k: length, magnitude: magnitude, result: exact))
                }
                for c in width..<stride { #expect(out[r * stride + c] == 5) }
            }
        }
    }

    /// The float16 kernels do the float32 kernels' arithmetic on the floats they read, so on float16 keys and values
    /// they give the same bits as the float32 kernels on the same values widened.
    @Test("cross-attention with float16 keys and values equals float32 on the same values", arguments: levels, 1...5)
    func crossAttentionHalf(level: CPUFeatures.Level, rows: Int) {
        let kernels = KernelSet(level: level)
        let width = 64
        for length in [1, 7, 75, 203] {
            let queryStride = width + 3
            let query = Self.random(rows * queryStride, seed: length)
            let halfKeys = Self.random(width * length, seed: length + 1).map { Float16($0).bitPattern }
            let keys = halfKeys.map { Float(Float16(bitPattern: $0)) }
            var fromHalf = [Float](repeating: 7, count: rows * length), fromFloat = fromHalf
            CrossAttention.scores(
                query: query, queryStride: queryStride, rows: rows, halfKeys: halfKeys, length: length, width: width,
                into: &fromHalf, outputStride: length, kernels: kernels)
            CrossAttention.scores(
                query: query, queryStride: queryStride, rows: rows, keys: keys, length: length, width: width,
                into: &fromFloat, outputStride: length, kernels: kernels)
            #expect(fromHalf.map(\.bitPattern) == fromFloat.map(\.bitPattern), "scores, length \(length)")
            let weights = Self.random(rows * length, seed: length + 2, in: 0...1)
            let halfValues = Self.random(length * width, seed: length + 3).map { Float16($0).bitPattern }
            let values = halfValues.map { Float(Float16(bitPattern: $0)) }
            var outHalf = [Float](repeating: 5, count: rows * width), outFloat = outHalf
            CrossAttention.weightedValues(
                weights: weights, rows: rows, length: length, halfValues: halfValues, width: width, into: &outHalf,
                outputStride: width, kernels: kernels)
            CrossAttention.weightedValues(
                weights: weights, rows: rows, length: length, values: values, width: width, into: &outFloat,
                outputStride: width, kernels: kernels)
            #expect(outHalf.map(\.bitPattern) == outFloat.map(\.bitPattern), "values, length \(length)")
        }
    }

    /// Rounding to nearest with ties to even is exact arithmetic, so every level must give Swift's `Float16(x)`
    /// bits: on random floats of every magnitude, on each float16's neighbours and the midpoints between them (the
    /// ties), and on subnormals, overflow and infinities.
    @Test("float32 to float16 conversion rounds to nearest, ties to even", arguments: levels)
    func floatToHalf(level: CPUFeatures.Level) {
        var generator = SplitMix64(seed: 11)
        var x: [Float] = (0..<20_000).map { _ in Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &generator)) }
            .filter { !$0.isNaN }
        for bits in stride(from: UInt16(0), to: 0x7c00, by: 7) {
            let value = Float(Float16(bitPattern: bits)), next = Float(Float16(bitPattern: bits + 1))
            let middle = (value + next) / 2  // exact: float has 13 more mantissa bits than float16
            x += [value, middle, middle.nextUp, middle.nextDown, -middle]
        }
        x += [0, -0.0, 65504, 65519.996, 65520, 1e6, .infinity, -.infinity, 1e-8, 2.98e-8, 5.96e-8, -6.1e-5]
        var out = [UInt16](repeating: 0, count: x.count)
        KernelSet(level: level).table.pointee.float_to_half(x, x.count, &out)
        for (value, bits) in zip(x, out) {
            #expect(bits == Float16(value).bitPattern, "\(value)")
        }
        var nan = [UInt16](repeating: 0, count: 9)
        KernelSet(level: level).table.pointee.float_to_half([Float](repeating: .nan, count: 9), 9, &nan)
        #expect(nan.allSatisfy { Float16(bitPattern: $0).isNaN })
    }

    /// Exact: every binary16 value is a binary32 value. Read from an odd address, as model files place variables.
    @Test("float16 to float32 conversion, all 65,536 values", arguments: levels)
    func halfToFloat(level: CPUFeatures.Level) {
        let bits = (0...UInt16.max).map { $0 }
        var bytes = [UInt8](repeating: 0, count: 1 + 2 * bits.count)
        for (i, b) in bits.enumerated() { bytes[1 + 2 * i] = UInt8(b & 0xFF); bytes[2 + 2 * i] = UInt8(b >> 8) }
        var out = [Float](repeating: 0, count: bits.count)
        bytes.withUnsafeBytes { raw in
            KernelSet(level: level).table.pointee.half_to_float(raw.baseAddress! + 1, bits.count, &out)
        }
        for (b, value) in zip(bits, out) {
            let expected = Float(Float16(bitPattern: b))
            if expected.isNaN {
                #expect(value.isNaN, "bits \(b)")
            } else {
                #expect(value.bitPattern == expected.bitPattern, "bits \(b)")
            }
        }
    }

    /// The erf approximation errs by at most 1.5e-7 (Abramowitz–Stegun 7.1.26), which GELU halves and scales by |x|;
    /// a few roundings of values up to |x| add about 3·2⁻²⁴·|x|. So 3e-7·max(1, |x|) holds everywhere.
    @Test("GELU", arguments: levels)
    func gelu(level: CPUFeatures.Level) {
        let x = Self.random(1003, seed: 1, in: -9...9) + [0, -0.0, 1e-30, -1e-30, 20, -20]
        var y = x
        Kernels.gelu(&y, count: y.count, kernels: KernelSet(level: level))
        for (input, output) in zip(x, y) {
            let exact = 0.5 * Double(input) * (1 + erf(Double(input) / 2.0.squareRoot()))
            #expect(abs(Double(output) - exact) <= 3e-7 * max(1, abs(Double(input))), "gelu(\(input))")
        }
    }

    @Test("maximum is exact, whatever the length and where the largest value is", arguments: levels)
    func maximum(level: CPUFeatures.Level) {
        let kernels = KernelSet(level: level)
        #expect(Kernels.maximum([], count: 0, kernels: kernels) == -.infinity)
        for count in [1, 7, 8, 9, 31, 1500] {
            for position in Set([0, count / 2, count - 1]) {
                var x = Self.random(count, seed: count)
                x[position] = 3
                #expect(Kernels.maximum(x, count: count, kernels: kernels) == 3)
            }
        }
    }

    /// Each exponential is Cephes' polynomial (about 1 ulp) of an argument computed in Float as the reference computes
    /// it, so each value is within 4 ulps (relative 2.4e-7, allowed as 4e-7). The sum adds count values in eight lanes
    /// and then the lanes, each addition rounding once, so (count/8 + 8)·2⁻²³ relative covers it. A softmax value adds
    /// the rounding of its scaled argument (below 2·2⁻²⁴ here), the sum's error and the final multiply: 7e-7 relative
    /// plus the sum's bound.
    @Test("exp of shifted values and their sum, and softmax rows", arguments: levels)
    func softmax(level: CPUFeatures.Level) {
        let kernels = KernelSet(level: level)
        for count in [1, 13, 64, 1500] {
            let x = Self.random(count, seed: count, in: -12...4)
            let scale: Float = 0.125, shift: Float = 4 * 0.125
            var e = x
            let sum = Kernels.expShifted(&e, count: count, scale: scale, shift: shift, kernels: kernels)
            var exactSum = 0.0
            for i in 0..<count {
                let exact = Foundation.exp(Double(x[i] * scale - shift))
                exactSum += exact
                #expect(abs(Double(e[i]) - exact) <= 4e-7 * exact)
            }
            let sumBound = Double(count / 8 + 8) * Double(Float.ulpOfOne) * exactSum
            #expect(abs(Double(sum) - exactSum) <= sumBound)

            // Two rows, `stride` apart, and a row that is all −∞ (a fully masked row), which becomes zeros.
            let stride = count + 3
            let pad = [Float](repeating: 7, count: 3)
            var rows = Self.random(count, seed: 1, in: -12...4) + pad + x + pad + [Float](repeating: -.infinity, count: count) + pad
            let originals = rows
            Kernels.softmaxRows(&rows, rows: 3, cols: count, stride: stride, scale: scale, kernels: kernels)
            for r in 0..<2 {
                let row = originals[(r * stride)..<(r * stride + count)].map(Double.init)
                let largest = row.max()!
                let exps = row.map { Foundation.exp(($0 - largest) * Double(scale)) }
                let total = exps.reduce(0, +)
                for i in 0..<count {
                    let exact = exps[i] / total
                    #expect(abs(Double(rows[r * stride + i]) - exact) <= 7e-7 * exact + sumBound / total * exact + 1e-12)
                }
                for i in count..<stride { #expect(rows[r * stride + i] == originals[r * stride + i]) }
            }
            #expect(rows[(2 * stride)..<(2 * stride + count)].allSatisfy { $0 == 0 })
        }
    }

    /// The log of a Double sum, rounded to Float once and subtracted: within 2 ulps of the largest magnitude involved.
    @Test("log-softmax, with −∞ entries (suppressed tokens)", arguments: levels)
    func logSoftmax(level: CPUFeatures.Level) {
        for count in [1, 11, 51_865] {
            var x = Self.random(count, seed: count, in: -10...10)
            if count > 1 { x[count / 2] = -.infinity }
            var out = [Float](repeating: 0, count: count)
            Kernels.logSoftmax(x, count: count, into: &out, kernels: KernelSet(level: level))
            let finite = x.filter { $0 != -.infinity }.map(Double.init)
            let largest = finite.max()!
            let logSum = Foundation.log(finite.map { Foundation.exp($0 - largest) }.reduce(0, +)) + largest
            for i in 0..<count {
                if x[i] == -.infinity {
                    #expect(out[i] == -.infinity)
                } else {
                    let exact = Double(x[i]) - logSum
                    #expect(abs(Double(out[i]) - exact) <= 2 * Double(Float(max(abs(exact), abs(logSum), 1)).ulp) + 1e-6)
                }
            }
        }
    }

    /// Layer norm against a Double reference. The mean and the variance are float sums of `cols` terms, each within
    /// cols·2⁻²⁴ of their terms' magnitude (Higham; 2.3e-5 for 384), so an output is within a few times that of the
    /// normalised value: 1e-4 · (1 + |exact|) holds with room and fails on a wrong lane or row.
    @Test("layer norm of rows of odd and model widths", arguments: levels)
    func layerNorm(level: CPUFeatures.Level) {
        for cols in [1, 13, 384, 1_536] {
            let rows = cols == 384 ? 300 : 5  // 300 rows are split across the pool
            let x = Self.random(rows * cols, seed: cols, in: -4...6)
            let gamma = Self.random(cols, seed: cols + 1, in: 0.5...1.5)
            let beta = Self.random(cols, seed: cols + 2)
            var y = [Float](repeating: .nan, count: rows * cols)
            Kernels.layerNorm(x, rows: rows, cols: cols, gamma: gamma, beta: beta, into: &y, kernels: KernelSet(level: level))
            for r in 0..<rows {
                let row = x[(r * cols)..<((r + 1) * cols)].map(Double.init)
                let mean = row.reduce(0, +) / Double(cols)
                let variance = row.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(cols)
                for i in 0..<cols {
                    let exact = (row[i] - mean) / (variance + 1e-5).squareRoot() * Double(gamma[i]) + Double(beta[i])
                    #expect(abs(Double(y[r * cols + i]) - exact) <= 1e-4 * (1 + abs(exact)), "cols \(cols) row \(r) column \(i)")
                }
            }
        }
    }

    /// The top k of a row as log-softmax gives them. Which entries and in what order is exact (the largest logits,
    /// the lower index first on a tie); each log probability may differ from the Double reference by what the
    /// vector exponential adds to log-softmax's bound: its relative error (about 2e-7 a term) moves the log of
    /// the sum by at most that, so 1e-6 on top of 2 ulps of the largest magnitude.
    @Test("the top k log probabilities, with −∞ entries and ties", arguments: levels)
    func logSoftmaxTop(level: CPUFeatures.Level) {
        for (count, k) in [(1, 1), (11, 6), (51_865, 6), (51_865, 1)] {
            var x = Self.random(count, seed: count + k, in: -10...10)
            if count > 1 {
                x[count / 2] = -.infinity
                x[count - 1] = x.max()!  // a tie for the top: the lower index comes first
            }
            let top = Kernels.logSoftmaxTop(x, count: count, k: k, kernels: KernelSet(level: level))
            let expectedOrder = x.indices.filter { x[$0] != -.infinity }
                .sorted { x[$0] > x[$1] || (x[$0] == x[$1] && $0 < $1) }.prefix(k)
            #expect(top.map(\.index) == Array(expectedOrder))
            let finite = x.filter { $0 != -.infinity }.map(Double.init)
            let largest = finite.max()!
            let logSum = Foundation.log(finite.map { Foundation.exp($0 - largest) }.reduce(0, +)) + largest
            for candidate in top {
                let exact = Double(x[candidate.index]) - logSum
                #expect(abs(Double(candidate.logprob) - exact) <= 2 * Double(Float(max(abs(exact), abs(logSum), 1)).ulp) + 1e-6)
            }
        }
        let suppressed = [Float](repeating: -.infinity, count: 7)
        #expect(Kernels.logSoftmaxTop(suppressed, count: 7, k: 3, kernels: KernelSet(level: level)).isEmpty)
    }

    #if arch(x86_64)
        /// The AVX-512 build runs the same eight-lane arithmetic as the AVX2 build, so the engine's results do not
        /// depend on which of the two a machine has.
        @Test("AVX-512 and AVX2 builds give identical products", .enabled(if: CPUFeatures.current.level == .avx512))
        func identicalBuilds() {
            let (m, n, k) = (5, 31, 387)
            let a = Self.random(m * k, seed: 1)
            let b = Self.random(n * k, seed: 2).map { Float16($0) }
            var wide = [Float](repeating: 0, count: m * n), narrow = wide
            SkinnyGEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, c: &wide, ldc: n, alpha: 1, beta: 0, kernels: KernelSet(level: .avx512))
            SkinnyGEMM.multiply(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: k, c: &narrow, ldc: n, alpha: 1, beta: 0, kernels: KernelSet(level: .avx2))
            #expect(wide == narrow)
        }

        /// The AVX-512 build's softmax runs sixteen lanes at a time with the eight-lane build's arithmetic and sum
        /// order; its rows must equal the AVX2 build's bit for bit, at the encoder's 1,500-wide rows and at widths
        /// that leave eight-lane and scalar tails.
        @Test(
            "AVX-512 and AVX2 builds give identical softmax rows", .enabled(if: CPUFeatures.current.level == .avx512),
            arguments: [1500, 1000, 23, 17, 8, 7])
        func identicalSoftmax(cols: Int) {
            let rows = 4
            var wide = Self.random(rows * cols, seed: 3).map { $0 * 60 }
            wide[1] = -.infinity
            var narrow = wide
            Kernels.softmaxRows(&wide, rows: rows, cols: cols, stride: cols, scale: 0.125, kernels: KernelSet(level: .avx512))
            Kernels.softmaxRows(&narrow, rows: rows, cols: cols, stride: cols, scale: 0.125, kernels: KernelSet(level: .avx2))
            #expect(wide.map(\.bitPattern) == narrow.map(\.bitPattern))
        }

        /// GELU, sixteen lanes at a time in the AVX-512 build, equals the AVX2 build's bit for bit (the encoder's
        /// 1,536-wide rows, and lengths with eight-lane and scalar tails).
        @Test(
            "AVX-512 and AVX2 builds give identical GELU", .enabled(if: CPUFeatures.current.level == .avx512),
            arguments: [1536 * 3, 1537, 23, 9])
        func identicalGELU(count: Int) {
            var wide = Self.random(count, seed: 4, in: -6...6)
            var narrow = wide
            Kernels.gelu(&wide, count: count, kernels: KernelSet(level: .avx512))
            Kernels.gelu(&narrow, count: count, kernels: KernelSet(level: .avx2))
            #expect(wide.map(\.bitPattern) == narrow.map(\.bitPattern))
        }
    #endif
}

@Suite("CPUFeatures", .heavyWork)
struct CPUFeaturesTests {
    static let avx512: Set<String> = ["sse2", "avx", "fma", "f16c", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq"]

    @Test("the level follows the flags, and AURALKIT_CPU_LEVEL only lowers it")
    func levels() {
        #if arch(x86_64)
            #expect(CPUFeatures(flags: Self.avx512, override: nil).level == .avx512)
            #expect(CPUFeatures(flags: Self.avx512.subtracting(["avx512vl"]), override: nil).level == .avx2)
            #expect(CPUFeatures(flags: ["sse2", "avx", "fma", "avx2"], override: nil).level == .baseline, "AVX2 without F16C")
            #expect(CPUFeatures(flags: [], override: nil).level == .baseline)
            #expect(CPUFeatures(flags: Self.avx512, override: "avx2").level == .avx2)
            #expect(CPUFeatures(flags: Self.avx512, override: "BASELINE").level == .baseline)
            #expect(CPUFeatures(flags: Self.avx512, override: "avx2").hardwareLevel == .avx512)
            #expect(CPUFeatures(flags: ["fma", "f16c", "avx2"], override: "avx512").level == .avx2, "never raised")
            #expect(CPUFeatures(flags: Self.avx512, override: "sse9").level == .avx512, "unknown values are ignored")
        #else
            #expect(CPUFeatures(flags: Self.avx512, override: nil).level == .baseline)
        #endif
    }

    @Test("this machine's flags come from /proc/cpuinfo")
    func current() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        #expect(!CPUFeatures.current.flags.isEmpty)
        for flag in CPUFeatures.current.flags.prefix(5) { #expect(cpuinfo.contains(" \(flag)")) }
        #expect(CPUFeatures.current.level <= CPUFeatures.current.hardwareLevel)
    }
}
