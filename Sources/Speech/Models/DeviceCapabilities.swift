import AuralWhisper
import Foundation

/// What this machine can transcribe, and which model suits it; like AuralKit's `DeviceCapabilities`, plus what
/// helps choose a model on a Linux machine. Get it from `ModelManager.deviceCapabilities()`.
///
/// Dictation here means the English-only Whisper models (`tiny.en`, `base.en`, …): at a given size they are faster
/// to decode (a smaller vocabulary, no language detection) and more accurate on English than the multilingual
/// ones, which is what live dictation needs; they transcribe English only.
public struct DeviceCapabilities: Sendable, Hashable {
    /// Whether the engine runs on this CPU: always, since it picks its kernels for the CPU when it starts (AVX-512 or
    /// AVX2 where the CPU has them; on an x86-64 CPU without AVX2, baseline kernels that run several times slower,
    /// which `recommendedModel` takes into account). See `CPUFeatures.current` for the level chosen.
    public let supportsSpeechTranscriber: Bool
    /// Whether English-only (dictation) models can run here; see the type's description.
    public let supportsDictationTranscriber: Bool
    /// Languages some installable model transcribes, as bare-language locales (`en`, `de`, …).
    public let supportedLocales: [Locale]
    /// Languages the dictation (English-only) models transcribe: English.
    public let supportedDictationLocales: [Locale]
    /// Languages the complete installed models transcribe, without any network.
    public let installedLocales: [Locale]
    /// The most distinct locales sessions can reserve at once.
    public let maxReservedLocales: Int
    /// Logical processors available to this process.
    public let processorCount: Int
    /// Physical memory in bytes.
    public let physicalMemory: UInt64
    /// SIMD extensions found in /proc/cpuinfo that the engine's speed depends on (`avx2`, `fma`, `f16c`, `avx512f`,
    /// `avx512bw`, `avx512vl`, `avx512dq`, `avx_vnni`), from `CPUFeatures.current`.
    public let simdFeatures: Set<String>
    /// The multilingual model that suits this machine best for file transcription.
    public let recommendedModel: String
    /// The English-only model that keeps up with live speech on this machine.
    public let recommendedEnglishModel: String

    /// Memory, cores and the kernels' level decide: under 2 GiB of memory or on an x86-64 CPU without AVX2 (baseline
    /// kernels) → tiny; 8 or more cores and 8 GiB → small; otherwise base. Measured on a 2-core AVX2 machine, base.en
    /// decodes live speech faster than real time.
    static func recommendation(cores: Int, memory: UInt64, level: CPUFeatures.Level) -> (multilingual: String, english: String) {
        let gib: UInt64 = 1 << 30
        #if arch(x86_64)
            let fast = level >= .avx2
        #else
            let fast = true
        #endif
        if memory < 2 * gib || !fast { return ("tiny", "tiny.en") }
        if cores >= 8 && memory >= 8 * gib { return ("small", "small.en") }
        return ("base", "base.en")
    }

    /// The SIMD flags of interest among `CPUFeatures.current.flags`.
    static let simdFlags: Set<String> = ["avx2", "fma", "avx512f", "f16c", "avx512bw", "avx512vl", "avx512dq", "avx_vnni"]
}

extension ModelManager {
    /// This machine's capabilities, with `installedLocales` from the cache as it is now. Reads only the disk and
    /// /proc/cpuinfo.
    public func deviceCapabilities() -> DeviceCapabilities {
        let cpu = CPUFeatures.current
        let cores = AvailableCores.count
        let memory = ProcessInfo.processInfo.physicalMemory
        let installedLanguages = Set(installedModels().filter(\.isComplete).compactMap(\.descriptor).flatMap(\.languages))
        let recommended = DeviceCapabilities.recommendation(cores: cores, memory: memory, level: cpu.level)
        let languages = catalog.languages.sorted()
        return DeviceCapabilities(
            supportsSpeechTranscriber: true,
            supportsDictationTranscriber: catalog.models.contains(where: \.isEnglishOnly),
            supportedLocales: languages.map { Locale(identifier: $0) },
            supportedDictationLocales: catalog.models.contains(where: \.isEnglishOnly) ? [Locale(identifier: "en")] : [],
            installedLocales: installedLanguages.sorted().map { Locale(identifier: $0) },
            maxReservedLocales: maxReservedLocales,
            processorCount: cores,
            physicalMemory: memory,
            simdFeatures: cpu.flags.intersection(DeviceCapabilities.simdFlags),
            recommendedModel: recommended.multilingual,
            recommendedEnglishModel: recommended.english)
    }
}
