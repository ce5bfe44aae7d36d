// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AuralKit",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "AuralKit", targets: ["AuralKit"]),
        // Apple's Speech framework on Linux, with the parts of AVFoundation and CoreMedia its API uses.
        .library(name: "Speech", targets: ["Speech"]),
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "CoreMedia", targets: ["CoreMedia"]),
        .library(name: "AuralHistory", targets: ["AuralHistory"]),
        .library(name: "AuralServe", targets: ["AuralServe"]),
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
        // aural serve: civetweb parses HTTP, multipart forms and WebSocket frames (Debian's build has no .pc file).
        .systemLibrary(name: "CCivetWeb", providers: [.apt(["libcivetweb-dev"])]),
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
        // Apple's API: CoreMedia's times, AVFoundation's audio over AuralAudio, and the Speech framework over the engine.
        .target(name: "CoreMedia"),
        .target(name: "AVFoundation", dependencies: ["CoreMedia", "AuralAudio"]),
        .target(name: "Speech", dependencies: ["CoreMedia", "AVFoundation", "AuralWhisper", "AuralAudio", "AuralVAD"]),
        .target(name: "AuralKit", dependencies: ["Speech", "AuralWhisper", "AuralAudio", "AuralVAD"]),
        // Transcript history in SQLite (TranscriptStore), apart so that apps without history do not link libsqlite3.
        .target(name: "AuralHistory", dependencies: ["AuralKit", "AuralWhisper", "CSQLite"]),
        // aural serve as a library: OpenAI's audio API over civetweb, its web page, and the history it keeps.
        .target(name: "AuralServe", dependencies: ["CCivetWeb", "AuralKit", "AuralHistory", "Speech", "AuralWhisper", "AuralAudio"]),
        .executableTarget(name: "aural", dependencies: ["AuralServe", "AuralKit", "AuralHistory", "AuralWhisper", "AuralAudio", "AuralVAD"]),
        // The live transcription benchmark (scripts/live-bench).
        .executableTarget(name: "aural-live-bench", dependencies: ["AuralKit", "Speech", "AuralWhisper", "AuralAudio"], path: "Sources/LiveBench"),
        // SileroVAD's speed on one thread (scripts/vad-bench).
        .executableTarget(name: "aural-vad-bench", dependencies: ["AuralVAD", "AuralAudio"], path: "Sources/VADBench"),
        // What every test target shares: fixtures, the test model server, a source playing given samples.
        .target(name: "TestSupport", dependencies: ["AuralAudio", "AuralWhisper"], path: "Tests/TestSupport"),
        .testTarget(name: "AuralWhisperTests", dependencies: ["AuralWhisper", "AuralAudio", "AuralVAD", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "AuralVADTests", dependencies: ["AuralVAD", "CKernels", "AuralAudio", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "AVFoundationTests", dependencies: ["AVFoundation", "AuralAudio", "TestSupport"]),
        // What Firefox's SpeechAnalyzerEngine imports from Firefox's `Common` (its app-side protocols), with an audio
        // manager on AVAudioEngine and AVAudioConverter: the seeds' code compiles against it as printed.
        .target(name: "Common", dependencies: ["AVFoundation"], path: "Tests/Common"),
        // The seeds' app code as printed: written for Swift 5's language mode (the guide's `consumeResults` captures a
        // `var` in `MainActor.run`, which Swift 6 rejects), so this one target compiles in it.
        .testTarget(
            name: "SeedTests", dependencies: ["Speech", "AVFoundation", "CoreMedia", "Common", "TestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "AuralWhisper", "AuralAudio", "AuralVAD", "TestSupport"]),
        .testTarget(name: "AuralAudioTests", dependencies: ["AuralAudio", "TestSupport"]),
        .testTarget(name: "AuralKitTests", dependencies: ["AuralKit", "Speech", "AuralWhisper", "AuralAudio", "AuralVAD", "TestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "AuralServeTests", dependencies: ["AuralServe", "AuralHistory", "AuralKit", "AuralWhisper"]),
        .testTarget(name: "AuralHistoryTests", dependencies: ["AuralHistory", "AuralKit", "Speech", "AuralWhisper", "TestSupport"]),
        .testTarget(name: "AuralCLITests", dependencies: ["aural", "AuralKit", "Speech", "AuralHistory", "TestSupport"], exclude: ["Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)
