/// The running median of CTranslate2's `MedianFilter`, which the word aligner applies to the attention of every
/// alignment head and token row.
///
/// Positions whose whole window lies inside the input take the median of 7 from a selection network: a loop of
/// minima and maxima without branches, which the compiler vectorises. The mirrored edges, other widths and inputs
/// holding a NaN (an attention column of equal values normalises to NaN) take the insertion sort, whose choice
/// among unordered values the network would not repeat. Of ordered values any correct median is the same value,
/// so both give the same numbers, except that the network may return −0 where the sort returns +0 (they compare
/// equal); the aligner only adds the medians to a sum that starts at +0, where the sign of a zero addend never shows.
enum MedianFilter {
    /// Median of each `width` values centred on every position, the edges mirrored without repeating the edge
    /// value (…, x2, x1 | x0, x1, x2, …). Counts up to width / 2 pass unchanged.
    static func apply(_ input: UnsafePointer<Float>, count: Int, width: Int, into output: UnsafeMutablePointer<Float>) {
        let half = width / 2
        if count <= half {
            output.update(from: input, count: count)
            return
        }
        // The positions [first, end) come from the network; all the others from the sort.
        var first = 0
        var end = 0
        if width == 7 && count > 2 * half && !containsNaN(input, count: count) {
            first = half
            end = count - half
            medianOfSeven(input, positions: first..<end, into: output)
        }
        sortedMedians(input, count: count, width: width, at: 0..<first, into: output)
        sortedMedians(input, count: count, width: width, at: end..<count, into: output)
    }

    /// The medians at `positions` by insertion into a sorted window, CTranslate2's way (the reference for the
    /// network), reading mirrored indices; `count` must exceed width / 2.
    static func sortedMedians(
        _ input: UnsafePointer<Float>, count: Int, width: Int, at positions: Range<Int>,
        into output: UnsafeMutablePointer<Float>
    ) {
        guard !positions.isEmpty else { return }
        let half = width / 2
        withUnsafeTemporaryAllocation(of: Float.self, capacity: width) { buffer in
            let window = buffer.baseAddress!
            for j in positions {
                for k in -half...half {
                    var read = abs(j + k)
                    if read >= count { read = 2 * count - read - 2 }
                    var i = k + half
                    let value = input[read]
                    while i > 0 && window[i - 1] > value {
                        window[i] = window[i - 1]
                        i -= 1
                    }
                    window[i] = value
                }
                output[j] = window[half]
            }
        }
    }

    /// Whether any of the values is NaN (16 at a time).
    private static func containsNaN(_ input: UnsafePointer<Float>, count: Int) -> Bool {
        typealias Lanes = SIMD16<Float>
        var unordered = SIMDMask<SIMD16<Int32>>(repeating: false)
        var i = 0
        while i + Lanes.scalarCount <= count {
            let v = UnsafeRawPointer(input + i).loadUnaligned(as: Lanes.self)
            unordered .|= v .!= v
            i += Lanes.scalarCount
        }
        while i < count {
            if input[i].isNaN { return true }
            i += 1
        }
        return any(unordered)
    }

    /// The medians of 7 at `positions`, which need 3 values on either side (a loop the compiler vectorises).
    private static func medianOfSeven(
        _ input: UnsafePointer<Float>, positions: Range<Int>, into output: UnsafeMutablePointer<Float>
    ) {
        for j in positions {
            let x = input + j - 3
            output[j] = medianOfSeven(x[0], x[1], x[2], x[3], x[4], x[5], x[6])
        }
    }

    /// The median of seven values: the comparators of Batcher's odd–even merge sort of 8 (the eighth value taken
    /// as +∞) that lead to the fourth smallest, keeping only the minimum or maximum that is read.
    @inline(__always)
    private static func medianOfSeven(
        _ x0: Float, _ x1: Float, _ x2: Float, _ x3: Float, _ x4: Float, _ x5: Float, _ x6: Float
    ) -> Float {
        // Sort pairs, then merge them into a sorted 0...3 and a sorted 4...6.
        var (a0, a1) = (lower(x0, x1), upper(x0, x1))
        var (a2, a3) = (lower(x2, x3), upper(x2, x3))
        var (a4, a5) = (lower(x4, x5), upper(x4, x5))
        var a6 = x6
        (a0, a2) = (lower(a0, a2), upper(a0, a2))
        (a1, a3) = (lower(a1, a3), upper(a1, a3))
        (a4, a6) = (lower(a4, a6), upper(a4, a6))
        (a1, a2) = (lower(a1, a2), upper(a1, a2))
        (a5, a6) = (lower(a5, a6), upper(a5, a6))
        // Merge the two halves, as far as it decides the fourth smallest.
        a4 = upper(a0, a4)
        a5 = upper(a1, a5)
        a2 = lower(a2, a6)
        a4 = upper(a2, a4)
        a3 = lower(a3, a5)
        return lower(a3, a4)
    }

    /// The smaller of two ordered values (`minps`).
    @inline(__always)
    private static func lower(_ a: Float, _ b: Float) -> Float { b < a ? b : a }

    /// The larger of two ordered values (`maxps`).
    @inline(__always)
    private static func upper(_ a: Float, _ b: Float) -> Float { a < b ? b : a }
}
