import CBLAS
import Foundation

/// Which OpenBLAS kernel runs the matrix products, and a better one when OpenBLAS fell back to a generic kernel.
///
/// OpenBLAS picks its kernel from the CPU model when the library loads. Debian 12's OpenBLAS 0.3.21 does not know
/// recent Xeons and falls back to its SSE3 `Prescott` kernel, which runs the encoder 2–3× slower than its AVX2
/// `Haswell` kernel on the same machine. The kernel can only be chosen through `OPENBLAS_CORETYPE` before the
/// library loads, so a program that wants the faster kernel sets it and starts itself again (`aural` does).
public enum BLASKernel {
    /// The name of the kernel OpenBLAS uses in this process ("Haswell", "Prescott", …).
    public static var current: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// The kernel to ask for with `OPENBLAS_CORETYPE`, or nil when the current one is fine or the variable is set.
    /// Suggests "Haswell" when OpenBLAS runs a pre-AVX2 kernel on a CPU that has AVX2 and FMA.
    public static var suggestedCoreType: String? {
        if ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] != nil { return nil }
        let generic = ["prescott", "core2", "nehalem", "katmai", "coppermine", "northwood", "banias", "atom", "unknown"]
        guard generic.contains(current.lowercased()) else { return nil }
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let flags = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return nil }
        let set = Set(flags.split(separator: " ").map(String.init))
        return set.contains("avx2") && set.contains("fma") ? "Haswell" : nil
    }
}
