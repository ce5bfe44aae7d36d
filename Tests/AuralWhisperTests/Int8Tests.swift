import CKernels
import Foundation
import Testing
import TestSupport
@testable import AuralWhisper

/// The int8 compute type: quantization, the int8 product kernels of every level, oneDNN's product, and whole
/// transcriptions.
///
/// The kernels sum integers exactly and then do the same few float operations in the same order as the Swift
/// reference here (no contraction in the C kernels, none in Swift), so every expectation on them is bit-equality:
/// it holds on any CPU, and a wrong lane, row or offset changes the sum by a whole term. oneDNN is held to equality
/// only where its product is exact by construction (VNNI's 32-bit accumulation); elsewhere the engine gives it 7-bit
/// activations, and the test allows the quantization error of that bit.
@Suite("int8 compute type", .heavyWork)
struct Int8Tests {
    static let levels = KernelTests.levels

    /// CTranslate2's rule in plain Swift: step = max|x| / 127 as 1 / (127 / max|x|), q = x·(127 / max|x|) rounded to
    /// nearest even, within ±127.
    static func quantize(_ row: ArraySlice<Float>) -> (values: [Int8], step: Float) {
        let amax = row.reduce(Float(0)) { max($0, abs($1)) }
        let scale: Float = amax > 0 ? 127 / amax : 1
        let values = row.map { Int8(min(127, max(-127, ($0 * scale).rounded(.toNearestOrEven)))) }
        return (values, 1 / scale)
    }

    static func quantizeRows(_ x: [Float], rows: Int, cols: Int, kernels: KernelSet, offset: Bool = false) -> ([Int8], [Float]) {
        var q = [Int8](repeating: 0, count: rows * cols)
        var steps = [Float](repeating: 0, count: rows)
        kernels.table.pointee.quantize_rows(x, rows, cols, cols, &q, cols, &steps, 127, offset ? 128 : 0)
        return (q, steps)
    }

    @Test("rows quantize by CTranslate2's rule, ties to even, zero rows to zero", arguments: levels)
    func quantization(level: CPUFeatures.Level) {
        let cols = 77  // not a multiple of 8
        var x = KernelTests.random(4 * cols, seed: 5, in: -3...3)
        for i in cols..<(2 * cols) { x[i] = 0 }  // a zero row
        x[2 * cols] = 2.54  // largest of row 2: scale 50, so 0.25 and 0.75 are ties (12.5, 37.5)
        x[2 * cols + 1] = 0.25
        x[2 * cols + 2] = 0.75
        for i in (2 * cols + 3)..<(3 * cols) { x[i] = min(max(x[i], -2.5), 2.5) }
        let (q, steps) = Self.quantizeRows(x, rows: 4, cols: cols, kernels: KernelSet(level: level))
        for r in 0..<4 {
            let expected = Self.quantize(x[(r * cols)..<((r + 1) * cols)])
            #expect(Array(q[(r * cols)..<((r + 1) * cols)]) == expected.values, "row \(r)")
            #expect(steps[r] == expected.step, "row \(r)")
        }
        #expect(q[2 * cols + 1] == 12 && q[2 * cols + 2] == 38)  // 12.5 → 12, 37.5 → 38
        #expect(q[cols..<(2 * cols)].allSatisfy { $0 == 0 } && steps[1] == 1)
        let (shifted, _) = Self.quantizeRows(x, rows: 4, cols: cols, kernels: KernelSet(level: level), offset: true)
        #expect(zip(shifted, q).allSatisfy { UInt8(bitPattern: $0.0) == UInt8(Int($0.1) + 128) })
    }

    /// The product of `rows` quantized rows and `weights`, as the kernels define it, in Swift.
    static func reference(
        a: [Int8], aSteps: [Float], rows: Int, weights w: Int8Weights, k: Int, alpha: Float, beta: Float, start: [Float]
    ) -> [Float] {
        let n = w.outFeatures
        var c = start
        for r in 0..<rows {
            for o in 0..<n {
                var dot: Int32 = 0
                for p in 0..<k { dot += Int32(a[r * k + p]) * Int32(w.values[o * k + p]) }
                let value = Float(dot) * (aSteps[r] * w.steps[o])
                c[r * n + o] = beta == 0 ? alpha * value : alpha * value + beta * c[r * n + o]
            }
        }
        return c
    }

    @Test("products of 1 to 8 int8 rows equal the integer reference exactly, at every level", arguments: levels, 1...8)
    func skinnyProducts(level: CPUFeatures.Level, m: Int) {
        let kernels = KernelSet(level: level)
        for (n, k) in [(13, 37), (6, 64), (33, 200), (5, 384)] {  // k below, at and off multiples of 32 and 64
            let weights = KernelTests.random(n * k, seed: n + k)
            let w = weights.withUnsafeBufferPointer { Int8Weights(quantizing: $0.baseAddress!, outFeatures: n, inFeatures: k) }
            let (a, aSteps) = Self.quantizeRows(KernelTests.random(m * k, seed: m * 3 + k), rows: m, cols: k, kernels: kernels)
            let start = KernelTests.random(m * n, seed: 9)
            for (alpha, beta) in [(Float(1), Float(0)), (1, 1), (-2, 0.25)] {
                let expected = Self.reference(a: a, aSteps: aSteps, rows: m, weights: w, k: k, alpha: alpha, beta: beta, start: start)
                var c = start
                kernels.table.pointee.skinny_i8(
                    0, n, Int32(m), k, a, k, aSteps, w.values.pointer, k, w.steps.pointer, w.rowSums.pointer, &c, n,
                    alpha, beta)
                #expect(c == expected, "n \(n) k \(k) alpha \(alpha) beta \(beta)")
                #if arch(x86_64)
                    if level == .avx512, CPUFeatures.current.flags.contains("avx512_vnni") {
                        let unsigned = a.map { UInt8(Int($0) + 128) }
                        var v = start
                        ck_skinny_i8_vnni(
                            0, n, Int32(m), k, unsigned, k, aSteps, w.values.pointer, k, w.steps.pointer,
                            w.rowSums.pointer, &v, n, alpha, beta)
                        #expect(v == expected, "VNNI n \(n) k \(k) alpha \(alpha) beta \(beta)")
                    }
                #endif
            }
        }
    }

    @Test("a product of many rows (oneDNN) equals the same rows one at a time (the C kernel), at every level", arguments: levels)
    func manyRowsMatchFewRows(level: CPUFeatures.Level) throws {
        _ = try OneDNN.loaded.get()
        let kernels = KernelSet(level: level)
        let (rows, n, k) = (70, 45, 96)
        // Every odd input's weight is zero, so no pair of neighbouring weights sums past 127 in magnitude and
        // `vpmaddubsw` cannot saturate (255 · 127 < 32,767): oneDNN's product is then exact on every CPU.
        var weights = KernelTests.random((n + 3) * k, seed: 1)
        for i in stride(from: 1, to: weights.count, by: 2) { weights[i] = 0 }
        let w = weights.withUnsafeBufferPointer { Int8Weights(quantizing: $0.baseAddress!, outFeatures: n + 3, inFeatures: k) }
        let x = KernelTests.random(rows * k, seed: 2, in: -4...4)
        let bias = KernelTests.random(n + 3, seed: 3)
        let start = KernelTests.random(rows * n, seed: 4)
        let outputs = 2..<(n + 2)  // a slice of the outputs, as for fused projections
        for accumulate in [false, true] {
            var many = start, few = start
            Int8GEMM.multiply(
                x, rows: rows, weights: w, outputs: outputs, bias: bias.withUnsafeBufferPointer { $0.baseAddress! + 2 },
                into: &many, accumulate: accumulate, kernels: kernels)
            for r in 0..<rows {
                x.withUnsafeBufferPointer { xs in
                    few.withUnsafeMutableBufferPointer { ys in
                        bias.withUnsafeBufferPointer { b in
                            Int8GEMM.multiply(
                                xs.baseAddress! + r * k, rows: 1, weights: w, outputs: outputs, bias: b.baseAddress! + 2,
                                into: ys.baseAddress! + r * n, accumulate: accumulate, kernels: kernels)
                        }
                    }
                }
            }
            // Both sum the same 8-bit integers exactly and scale the sums the same way, so the floats are identical.
            #expect(many == few, "level \(level) accumulate \(accumulate)")
        }
    }

    @Test("int8 transcribes English as well as float32 (word error rate against the book's text)", arguments: ["tiny.en", "base"])
    func transcribes(modelName: String) throws {
        let samples = try Fixtures.samples("two_cities.wav")
        let options = DecodingOptions(language: "en", beamSize: 5)
        var rates: [ComputeType: Double] = [:]
        for type in [ComputeType.float32, .int8] {
            let model = try WhisperModel(folder: Fixtures.modelFolder(modelName), computeType: type)
            #expect(model.computeType == type)
            let (_, segments) = try Transcriber(model: model).transcribe(samples, options: options)
            rates[type] = WordErrorRate.percent(
                reference: ReferenceTranscripts.twoCities, hypothesis: segments.map(\.text).joined(separator: " "))
        }
        // float32 scores about 1 % here; int8 may differ in a word or two (119 words: 0.84 points each).
        #expect(rates[.int8]! <= rates[.float32]! + 1.7, "int8 \(rates[.int8]!) %, float32 \(rates[.float32]!) %")
        #expect(rates[.int8]! < 5)
    }

    @Test("auto resolves to int8 where oneDNN opens, and a model never reports auto")
    func autoResolves() throws {
        let expected: ComputeType = (try? OneDNN.loaded.get()) != nil ? .int8 : .float32
        #expect(ComputeType.auto.resolved == expected)
        #expect(try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: .auto).computeType == expected)
    }
}

@Suite("int8 model folders", .heavyWork)
struct Int8FolderTests {
    /// The int8 conversions `scripts/setup` makes of tiny.en with CTranslate2's own converter (`scripts/make-int8-model`).
    static let kinds = ["int8", "int8_float16", "int8_float32", "int8_bfloat16"]

    @Test("each int8 conversion loads with both compute types and transcribes", arguments: kinds)
    func loads(kind: String) throws {
        let folder = Fixtures.modelFolder("tiny.en-" + kind)
        let samples = try Fixtures.samples("two_cities.wav")
        for type in [ComputeType.int8, .float32] {
            let model = try WhisperModel(folder: folder, computeType: type)
            let (_, segments) = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: "en", beamSize: 5))
            let rate = WordErrorRate.percent(
                reference: ReferenceTranscripts.twoCities, hypothesis: segments.map(\.text).joined(separator: " "))
            #expect(rate < 5, "\(kind) as \(type): \(rate) %")
        }
    }

    @Test("weights stored in int8 equal those quantized at load from the float16 folder")
    func storedEqualsQuantized() throws {
        let stored = try WhisperModel(folder: Fixtures.modelFolder("tiny.en-int8_float32"), computeType: .int8)
        let quantized = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: .int8)
        for (a, b) in [(stored.encoder.layers[0].ffnIn, quantized.encoder.layers[0].ffnIn),
                       (stored.decoder.embedding, quantized.decoder.embedding)] {
            let x = try #require(a.int8), y = try #require(b.int8)
            #expect(x.values.array == y.values.array)
            #expect(x.steps.array == y.steps.array)
        }
    }
}
