import Foundation

/// Element-wise and row-wise kernels of the transformer: layer norm, GELU, softmax, bias.
/// All work on raw row-major Float buffers; the callers own the memory.
enum Kernels {
    /// y[r] = (x[r] - mean) / sqrt(var + 1e-5) · gamma + beta for each row of `cols` values (biased variance).
    static func layerNorm(
        _ x: UnsafePointer<Float>, rows: Int, cols: Int, gamma g: UnsafePointer<Float>, beta b: UnsafePointer<Float>,
        into y: UnsafeMutablePointer<Float>
    ) {
        for r in 0..<rows {
            let xr = x + r * cols
            let yr = y + r * cols
            var sum: Float = 0
            for i in 0..<cols { sum += xr[i] }
            let mean = sum / Float(cols)
            var sq: Float = 0
            for i in 0..<cols {
                let d = xr[i] - mean
                sq += d * d
            }
            let inv = 1 / (sq / Float(cols) + 1e-5).squareRoot()
            for i in 0..<cols { yr[i] = (xr[i] - mean) * inv * g[i] + b[i] }
        }
    }

    /// Adds `bias` (length `cols`) to every row.
    static func addBias(_ y: UnsafeMutablePointer<Float>, rows: Int, cols: Int, bias b: UnsafePointer<Float>) {
        for r in 0..<rows {
            let yr = y + r * cols
            for i in 0..<cols { yr[i] += b[i] }
        }
    }

    /// GELU, 0.5·x·(1 + erf(x/√2)), in place (CTranslate2's activation 3, PyTorch's default), eight lanes at a time.
    /// erf comes from Abramowitz–Stegun 7.1.26 (absolute error below 1.5e-7, under Float's rounding of the result).
    static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int) {
        Parallel.forEachRange(count / 8) { range in
            geluSerial(x + range.lowerBound * 8, count: range.count * 8)
        }
        let tail = count / 8 * 8
        geluSerial(x + tail, count: count - tail)
    }

    private static func geluSerial(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let raw = UnsafeMutableRawPointer(x)
        var i = 0
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: gelu8(v), toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            let v = x[i]
            x[i] = 0.5 * v * (1 + erff(v * 0.70710678118654752))
            i += 1
        }
    }

    @inline(__always)
    static func gelu8(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let z = v * 0.70710678118654752
        var a = z
        a.replace(with: -z, where: z .< 0)
        let t = 1 / (1 + 0.3275911 * a)
        var poly = SIMD8<Float>(repeating: 1.061405429)
        poly = poly * t - 1.453152027
        poly = poly * t + 1.421413741
        poly = poly * t - 0.284496736
        poly = poly * t + 0.254829592
        poly = poly * t
        var erf = 1 - poly * exp8(-(a * a))
        erf.replace(with: -erf, where: z .< 0)
        return 0.5 * v * (1 + erf)
    }

    /// Softmax of each row in place, after multiplying by `scale`.
    static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, stride: Int, scale: Float = 1) {
        for r in 0..<rows {
            let row = x + r * stride
            let maxValue = maximum(row, count: cols)
            if maxValue == -.infinity {
                for i in 0..<cols { row[i] = 0 }
                continue
            }
            let shift = maxValue * scale
            let sum = expShifted(row, count: cols, scale: scale, shift: shift)
            let inv = 1 / sum
            for i in 0..<cols { row[i] *= inv }
        }
    }

    /// The largest of x[0..<count] (−∞ when empty). Eight lanes at a time.
    static func maximum(_ x: UnsafePointer<Float>, count: Int) -> Float {
        var lanes = SIMD8<Float>(repeating: -.infinity)
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
            lanes.replace(with: v, where: v .> lanes)
            i += 8
        }
        var result = lanes.max()
        while i < count {
            if x[i] > result { result = x[i] }
            i += 1
        }
        return result
    }

    /// x[i] = exp(x[i]·scale − shift) in place; returns the sum. Eight lanes at a time.
    static func expShifted(_ x: UnsafeMutablePointer<Float>, count: Int, scale: Float, shift: Float) -> Float {
        var sum = SIMD8<Float>(repeating: 0)
        var i = 0
        let raw = UnsafeMutableRawPointer(x)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let e = exp8(v * scale - shift)
            raw.storeBytes(of: e, toByteOffset: i * 4, as: SIMD8<Float>.self)
            sum += e
            i += 8
        }
        var total = sum.sum()
        while i < count {
            let e = expf(x[i] * scale - shift)
            x[i] = e
            total += e
            i += 1
        }
        return total
    }

    /// exp of eight lanes for inputs ≤ 0 (softmax after the max is subtracted, and Gaussian tails): Cody–Waite
    /// range reduction and a degree-6 polynomial (Cephes expf), about 1 ulp; lanes below −87.3 give 0.
    /// The integer part is rounded with the 1.5·2²³ trick so that every step stays in vector registers.
    @inline(__always)
    static func exp8(_ input: SIMD8<Float>) -> SIMD8<Float> {
        var x = input
        x.replace(with: -87.3, where: input .< -87.3)
        let magic = SIMD8<Float>(repeating: 12_582_912)  // 1.5 · 2^23
        let shifted = x * 1.44269504088896341 + magic
        let n = shifted - magic
        var r = x - n * 0.693359375
        r = r + n * 2.12194440e-4
        let z = r * r
        var y = SIMD8<Float>(repeating: 1.9875691500e-4)
        y = y * r + 1.3981999507e-3
        y = y * r + 8.3334519073e-3
        y = y * r + 4.1665795894e-2
        y = y * r + 1.6666665459e-1
        y = y * r + 5.0000001201e-1
        y = y * z + r + 1
        let integer = unsafeBitCast(shifted, to: SIMD8<Int32>.self) &- 0x4B40_0000
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: SIMD8<Float>.self)
        var result = y * scale
        result.replace(with: 0, where: input .< -87.3)
        return result
    }

    /// log_softmax of one row into `out` (computed in Double for the sums, as the reference does in f32/f64).
    static func logSoftmax(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        let maxValue = maximum(x, count: count)
        var sum: Double = 0
        for i in 0..<count where x[i] != -.infinity { sum += Double(expf(x[i] - maxValue)) }
        let logSum = Float(Foundation.log(sum)) + maxValue
        for i in 0..<count { out[i] = x[i] - logSum }
    }
}
