import Foundation

/// oneDNN (Debian's `libdnnl2`), opened the first time the int8 compute type needs it, for its u8·s8 → s32 matrix
/// product: the encoder's and the long prompts' int8 products. oneDNN compiles that product at run time for the CPU
/// it finds (AVX-512 VNNI, AVX-512, AVX2), which is what CTranslate2 uses on CPUs without Intel's MKL.
///
/// Like OpenBLAS it is opened with `dlopen`, so the float32 engine needs no oneDNN at all, and it runs on the calling
/// thread only: the engine splits the rows of large products over its own `WorkerPool`. Debian builds oneDNN with
/// OpenMP, so each call first sets the calling thread's OpenMP team to one thread (`omp_set_num_threads(1)`); no
/// OpenMP thread is ever started, and none spins beside the engine's workers. When `AURALKIT_CPU_LEVEL` lowers the
/// engine's level, `DNNL_MAX_CPU_ISA` (unless set) lowers oneDNN's to match, so that an AVX-512 machine can run what an
/// AVX2-only one does.
struct OneDNN: Sendable {
    /// `dnnl_gemm_u8s8s32` (row-major): C = alpha·(A − ao)·op(B − bo) + beta·C + co.
    typealias GEMM = @convention(c) (
        CChar, CChar, CChar, Int64, Int64, Int64, Float, UnsafePointer<UInt8>?, Int64, UInt8,
        UnsafePointer<Int8>?, Int64, Int8, Float, UnsafeMutablePointer<Int32>?, Int64, UnsafePointer<Int32>?
    ) -> Int32

    let gemm: GEMM
    let setThreadCount: @convention(c) (Int32) -> Void

    /// The library's file names, most specific first (Debian 12's `libdnnl2` provides the first).
    static let fileNames = ["libdnnl.so.2", "libdnnl.so.3", "libdnnl.so"]

    /// The library, or why it could not be opened; opened once per process.
    static let loaded: Result<OneDNN, WhisperModelError> = open()

    /// C[rows × n] = A[rows × k] · B[n × k]ᵀ + offsets (one per column), all integers: A holds activations quantized
    /// with an offset (unsigned bytes), B int8 weights, and `columnOffsets` −offset·Σₖ B[o, k], which takes the offset
    /// back out. With `transposedB` false, B is [k × n] and C = A · B + offsets. Returns false when oneDNN reports an
    /// error.
    func multiply(
        rows: Int, n: Int, k: Int, a: UnsafePointer<UInt8>, lda: Int, b: UnsafePointer<Int8>, ldb: Int,
        transposedB: Bool = true, columnOffsets: UnsafePointer<Int32>, c: UnsafeMutablePointer<Int32>, ldc: Int
    ) -> Bool {
        setThreadCount(1)
        let status = gemm(
            CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: transposedB ? "T" : "N")), CChar(UInt8(ascii: "R")),
            Int64(rows), Int64(n),
            Int64(k), 1, a, Int64(lda), 0, b, Int64(ldb), 0, 0, c, Int64(ldc), columnOffsets)
        return status == 0
    }

    /// oneDNN's `DNNL_MAX_CPU_ISA` for a lowered engine level; nil when the level is the CPU's own.
    static func maximumISA(_ features: CPUFeatures) -> String? {
        guard features.isLowered else { return nil }
        return features.level == .avx2 ? "AVX2" : "SSE41"
    }

    private static func open() -> Result<OneDNN, WhisperModelError> {
        if getenv("DNNL_MAX_CPU_ISA") == nil, let isa = maximumISA(.current) { setenv("DNNL_MAX_CPU_ISA", isa, 0) }
        var failures: [String] = []
        for name in fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                failures.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            // dlsym on a handle also searches the library's dependencies: OpenMP comes with oneDNN.
            guard let gemm = dlsym(handle, "dnnl_gemm_u8s8s32").map({ unsafeBitCast($0, to: GEMM.self) }),
                let setThreads = dlsym(handle, "omp_set_num_threads")
                    .map({ unsafeBitCast($0, to: (@convention(c) (Int32) -> Void).self) })
            else {
                failures.append("\(name) lacks dnnl_gemm_u8s8s32 or OpenMP's omp_set_num_threads")
                continue
            }
            return .success(OneDNN(gemm: gemm, setThreadCount: setThreads))
        }
        return .failure(.engineUnavailable(
            reason: "the int8 compute type needs oneDNN, which could not be opened ("
                + failures.joined(separator: "; ") + "); install Debian's libdnnl2 or use the float32 compute type"))
    }
}
