import Foundation

/// The CPU's instruction-set extensions, read once from `/proc/cpuinfo`, and the level of the engine's kernels they
/// allow: the one place the engine, OpenBLAS's kernel choice, `DeviceCapabilities` and the CLI learn what the CPU has.
///
/// The engine is compiled for the architecture's baseline and runs on any x86-64 or aarch64 CPU; its hot kernels
/// (the `CKernels` target) are built for each ``Level`` and chosen once, from ``current``.
///
/// Set `AURALKIT_CPU_LEVEL` to `baseline`, `avx2` or `avx512` before the first use to lower the level (to test or
/// measure the slower kernels); it never raises the level above what the CPU has, and other values are ignored.
public struct CPUFeatures: Sendable, Hashable {
    /// A set of kernels, each needing the extensions of the ones below it.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        /// Any CPU of the architecture (SSE2 on x86-64, NEON on aarch64).
        case baseline = 0
        /// x86-64 with AVX2, FMA and F16C (Intel Haswell, AMD Zen and later).
        case avx2 = 1
        /// x86-64 with AVX-512 F, BW, VL and DQ besides AVX2, FMA and F16C (Intel Skylake-SP, AMD Zen 4 and later).
        case avx512 = 2

        /// The name `AURALKIT_CPU_LEVEL` takes: `baseline`, `avx2` or `avx512`.
        public var description: String {
            switch self {
            case .baseline: "baseline"
            case .avx2: "avx2"
            case .avx512: "avx512"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The environment variable that lowers ``level``.
    public static let overrideVariable = "AURALKIT_CPU_LEVEL"

    /// The extensions `/proc/cpuinfo` lists for the first CPU (`flags` on x86-64, `Features` on aarch64); empty
    /// where it cannot be read.
    public let flags: Set<String>
    /// The highest level the CPU's extensions allow.
    public let hardwareLevel: Level
    /// The level the engine runs: ``hardwareLevel``, or lower when `AURALKIT_CPU_LEVEL` asks for it.
    public let level: Level

    /// This machine's features, read once per process (with `AURALKIT_CPU_LEVEL` as it was at that moment).
    public static let current = CPUFeatures(
        flags: readFlags(), override: ProcessInfo.processInfo.environment[overrideVariable])

    /// Features for the given flags; `override` (an `AURALKIT_CPU_LEVEL` value) may lower the level.
    init(flags: Set<String>, override: String?) {
        self.flags = flags
        hardwareLevel = Self.level(flags: flags)
        let requested = override.flatMap { name in Level.allCases.first { $0.description == name.lowercased() } }
        level = min(hardwareLevel, requested ?? hardwareLevel)
    }

    /// Whether `AURALKIT_CPU_LEVEL` lowered the level below what the CPU has.
    var isLowered: Bool { level < hardwareLevel }

    /// The highest level these extensions allow (always `.baseline` outside x86-64).
    static func level(flags: Set<String>) -> Level {
        #if arch(x86_64)
            let avx2 = ["avx2", "fma", "f16c"].allSatisfy(flags.contains)
            let avx512 = avx2 && ["avx512f", "avx512bw", "avx512vl", "avx512dq"].allSatisfy(flags.contains)
            return avx512 ? .avx512 : avx2 ? .avx2 : .baseline
        #else
            return .baseline
        #endif
    }

    private static func readFlags() -> Set<String> {
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") || $0.hasPrefix("Features") }),
            let colon = line.firstIndex(of: ":")
        else { return [] }
        return Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
    }
}
