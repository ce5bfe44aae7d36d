import Foundation

/// OpenBLAS, opened by the engine the first time it is needed, after choosing which of OpenBLAS's kernels to run.
///
/// OpenBLAS picks its kernel from the CPU model when the library loads, and that choice can be changed only through
/// `OPENBLAS_CORETYPE` before it loads. Debian 12's OpenBLAS 0.3.21 does not know recent Xeons and falls back to its
/// SSE3 `Prescott` kernel. On the Xeon with AVX-512 this was measured on, a 30-second base encoder window took
/// 3.2 s with `Prescott` and 0.8 s with `SkylakeX`. A linked OpenBLAS would load before any of the engine's code
/// runs, so the engine opens it with `dlopen` instead: when `OPENBLAS_CORETYPE` is unset, it first sets it from
/// `CPUFeatures.current.level` (`SkylakeX` for AVX-512, `Haswell` for AVX2; `Prescott`, which needs only SSE3, when
/// `AURALKIT_CPU_LEVEL=baseline` hides a faster CPU's extensions). Set `OPENBLAS_CORETYPE` to choose yourself.
struct OpenBLAS: Sendable {
    typealias SingleGEMM = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32,
        Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias DoubleGEMM = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Double, UnsafePointer<Double>?, Int32, UnsafePointer<Double>?, Int32,
        Double, UnsafeMutablePointer<Double>?, Int32
    ) -> Void
    typealias SingleGEMV = @convention(c) (
        Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32, Float,
        UnsafeMutablePointer<Float>?, Int32
    ) -> Void

    // cblas.h's enumerations.
    static let rowMajor: Int32 = 101
    static let noTranspose: Int32 = 111
    static let transpose: Int32 = 112

    let sgemm: SingleGEMM
    let dgemm: DoubleGEMM
    let sgemv: SingleGEMV
    let setThreadCount: @convention(c) (Int32) -> Void
    let coreName: @convention(c) () -> UnsafeMutablePointer<CChar>?

    /// The library's file names, most specific first (Debian's `libopenblas0` provides the first).
    static let fileNames = ["libopenblas.so.0", "libopenblas.so"]

    /// The library, or why it could not be opened; opened once per process.
    static let loaded: Result<OpenBLAS, WhisperModelError> = open()

    /// The opened library. `WhisperModel` checks `loaded` before any product can run.
    static var shared: OpenBLAS {
        switch loaded {
        case .success(let library): library
        case .failure(let error): fatalError("OpenBLAS is not available: \(error.failureReason ?? "")")
        }
    }

    /// The name of the kernel OpenBLAS runs ("SkylakeX", "Haswell", "Prescott", …).
    var kernel: String { coreName().map { String(cString: $0) } ?? "unknown" }

    /// The kernel to ask for at these CPU features: nil to leave OpenBLAS's own choice (a CPU whose best level is the
    /// baseline, which OpenBLAS knows how to serve).
    static func preferredCoreType(_ features: CPUFeatures) -> String? {
        switch features.level {
        case .avx512: "SkylakeX"
        case .avx2: "Haswell"
        case .baseline:
            #if arch(x86_64)
                features.isLowered ? "Prescott" : nil
            #else
                nil
            #endif
        }
    }

    private static func open() -> Result<OpenBLAS, WhisperModelError> {
        let alreadyLoaded = fileNames.contains { dlopen($0, RTLD_NOW | RTLD_NOLOAD) != nil }
        if !alreadyLoaded, getenv("OPENBLAS_CORETYPE") == nil, let coreType = preferredCoreType(.current) {
            setenv("OPENBLAS_CORETYPE", coreType, 0)
        }
        var failures: [String] = []
        for name in fileNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                failures.append(dlerror().map { String(cString: $0) } ?? name)
                continue
            }
            func symbol<T>(_ name: String, as type: T.Type) -> T? {
                dlsym(handle, name).map { unsafeBitCast($0, to: type) }
            }
            guard let sgemm = symbol("cblas_sgemm", as: SingleGEMM.self),
                let dgemm = symbol("cblas_dgemm", as: DoubleGEMM.self),
                let sgemv = symbol("cblas_sgemv", as: SingleGEMV.self),
                let setThreadCount = symbol("openblas_set_num_threads", as: (@convention(c) (Int32) -> Void).self),
                let coreName = symbol("openblas_get_corename", as: (@convention(c) () -> UnsafeMutablePointer<CChar>?).self)
            else {
                failures.append("\(name) lacks the CBLAS functions the engine calls")
                continue
            }
            // OpenBLAS computes on the calling thread only: `WorkerPool` splits the large products itself.
            setThreadCount(1)
            return .success(OpenBLAS(sgemm: sgemm, dgemm: dgemm, sgemv: sgemv, setThreadCount: setThreadCount, coreName: coreName))
        }
        return .failure(.engineUnavailable(reason: "OpenBLAS could not be opened: " + failures.joined(separator: "; ")))
    }
}
