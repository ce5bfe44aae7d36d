// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AuralKit",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "AuralKit", targets: ["AuralKit"]),
        .library(name: "AuralHistory", targets: ["AuralHistory"]),
        .library(name: "AuralWhisper", targets: ["AuralWhisper"]),
        .library(name: "AuralAudio", targets: ["AuralAudio"]),
        .library(name: "AuralVAD", targets: ["AuralVAD"]),
        .executable(name: "aural", targets: ["aural"]),
    ],
    targets: [
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        // Transcript history (TranscriptStore): Debian's SQLite, built with FTS5.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The engine's hot kernels in C, each built for AVX-512, AVX2 and the baseline and chosen at run time.
        .target(name: "CKernels", linkerSettings: [.linkedLibrary("m")]),
        // Silero voice activity detection: the model, its speech segments, and the weights file reader.
        .target(name: "AuralVAD", dependencies: ["CKernels"]),
        .target(
            name: "AuralWhisper",
            // OpenBLAS (Debian's libopenblas0) is opened at run time; see OpenBLAS.swift.
            dependencies: ["CZlib", "CKernels", "AuralVAD"]
        ),
        .target(name: "AuralAudio", dependencies: ["CFFmpeg", "CPulse"]),
        .target(name: "AuralKit", dependencies: ["AuralWhisper", "AuralAudio", "AuralVAD"]),
        // Transcript history in SQLite (TranscriptStore), apart so that apps without history do not link libsqlite3.
        .target(name: "AuralHistory", dependencies: ["AuralKit", "AuralWhisper", "CSQLite"]),
        .executableTarget(name: "aural", dependencies: ["AuralKit", "AuralHistory", "AuralWhisper", "AuralAudio", "AuralVAD"]),
        // The live transcription benchmark (scripts/live-bench).
        .executableTarget(name: "aural-live-bench", dependencies: ["AuralKit", "AuralWhisper", "AuralAudio"], path: "Sources/LiveBench"),
        // SileroVAD's speed on one thread (scripts/vad-bench).
        .executableTarget(name: "aural-vad-bench", dependencies: ["AuralVAD", "AuralAudio"], path: "Sources/VADBench"),
        // What every test target shares: fixtures, the test model server, a source playing given samples.
        .target(name: "TestSupport", dependencies: ["AuralAudio", "AuralWhisper"], path: "Tests/TestSupport"),
        .testTarget(name: "AuralWhisperTests", dependencies: ["AuralWhisper", "AuralAudio", "AuralVAD", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "AuralVADTests", dependencies: ["AuralVAD", "CKernels", "AuralAudio", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "AuralAudioTests", dependencies: ["AuralAudio", "TestSupport"]),
        .testTarget(name: "AuralKitTests", dependencies: ["AuralKit", "AuralWhisper", "AuralAudio", "AuralVAD", "TestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "AuralHistoryTests", dependencies: ["AuralHistory", "AuralKit", "AuralWhisper", "TestSupport"]),
        .testTarget(name: "AuralCLITests", dependencies: ["aural", "AuralKit", "AuralHistory", "TestSupport"], exclude: ["Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)
