import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("OpenBLAS", .heavyWork)
struct OpenBLASTests {
    @Test("the kernel follows the CPU's level, and a preset OPENBLAS_CORETYPE is left alone")
    func kernelChoice() throws {
        let avx512: Set<String> = ["fma", "f16c", "avx2", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        #expect(OpenBLAS.preferredCoreType(CPUFeatures(flags: avx512, override: nil)) == "SkylakeX")
        #expect(OpenBLAS.preferredCoreType(CPUFeatures(flags: avx512, override: "avx2")) == "Haswell")
        #expect(OpenBLAS.preferredCoreType(CPUFeatures(flags: ["fma", "f16c", "avx2", "avx512f"], override: nil)) == "Haswell")
        #expect(OpenBLAS.preferredCoreType(CPUFeatures(flags: ["sse3", "avx"], override: nil)) == nil)
        // Hiding AVX2 must keep OpenBLAS off it too.
        #expect(OpenBLAS.preferredCoreType(CPUFeatures(flags: avx512, override: "baseline")) == "Prescott")

        let library = try OpenBLAS.loaded.get()
        let preset = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        if let expected = preset ?? OpenBLAS.preferredCoreType(.current) {
            #expect(library.kernel.lowercased() == expected.lowercased())
        }
    }

    /// Whatever kernel runs, the engine's products must be right: old OpenBLAS builds have shipped wrong kernels for
    /// new CPUs. Shapes cover the single-call and the pool-split paths, both transposes, and strided views.
    @Test(
        "products match a Double reference",
        arguments: [(m: 48, n: 80, k: 64, transposeB: true), (m: 300, n: 384, k: 384, transposeB: true),
                    (m: 1500, n: 64, k: 1500, transposeB: false), (m: 97, n: 129, k: 513, transposeB: false)])
    func singleProducts(m: Int, n: Int, k: Int, transposeB: Bool) {
        var random = SplitMix64(seed: UInt64(m * 31 + n))
        let lda = k + 3
        let ldb = (transposeB ? k : n) + 5
        let a = (0..<(m * lda)).map { _ in Float.random(in: -1...1, using: &random) }
        let b = (0..<((transposeB ? n : k) * ldb)).map { _ in Float.random(in: -1...1, using: &random) }
        var c = [Float](repeating: 7, count: m * n)
        BLAS.gemm(m: m, n: n, k: k, a: a, lda: lda, b: b, ldb: ldb, transposeB: transposeB, c: &c, ldc: n)
        var worst = 0.0
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0.0
                var magnitude = 0.0
                for p in 0..<k {
                    let term = Double(a[i * lda + p]) * Double(transposeB ? b[j * ldb + p] : b[p * ldb + j])
                    exact += term
                    magnitude += abs(term)
                }
                worst = max(worst, abs(Double(c[i * n + j]) - exact) / magnitude)
            }
        }
        #expect(worst < 1e-5, "relative error \(worst) with \(OpenBLAS.shared.kernel)")
    }

    @Test("the Double product the log-mel DFT uses matches a plain sum")
    func doubleProduct() {
        let (m, n, k) = (250, 201, 400)
        var random = SplitMix64(seed: 5)
        let a = (0..<(m * k)).map { _ in Double.random(in: -1...1, using: &random) }
        let b = (0..<(k * n)).map { _ in Double.random(in: -1...1, using: &random) }
        var c = [Double](repeating: 0, count: m * n)
        BLAS.dgemm(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: &c, ldc: n)
        var worst = 0.0
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0.0
                for p in 0..<k { exact += a[i * k + p] * b[p * n + j] }
                worst = max(worst, abs(c[i * n + j] - exact))
            }
        }
        #expect(worst < 1e-12, "error \(worst) with \(OpenBLAS.shared.kernel)")
    }
}
