import AuralAudio
import Foundation
import Testing

/// Where every test target finds the recordings and models that `scripts/setup` provides, and how a test that
/// needs them is skipped, with a message, on a machine without them.
///
/// ```swift
/// @Test("transcribes the recording", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
/// func transcribes() throws {
///     let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
///     let samples = try Fixtures.samples("beckett.wav")
/// }
/// ```
public enum Fixtures {
    /// The repository's root folder, found from this file's path (`Tests/TestSupport/Fixtures.swift`).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// `fixtures/audio`: the WAV recordings.
    public static let audioDirectory = repositoryRoot.appendingPathComponent("fixtures/audio", isDirectory: true)

    /// `fixtures/media`: the recordings in other containers and codecs, encoded by `scripts/setup`.
    public static let mediaDirectory = repositoryRoot.appendingPathComponent("fixtures/media", isDirectory: true)

    /// The recording `fixtures/audio/<name>` ("two_cities.wav").
    public static func audio(_ name: String) -> URL {
        audioDirectory.appendingPathComponent(name)
    }

    /// The encoded file `fixtures/media/<name>` ("beckett.mp3").
    public static func media(_ name: String) -> URL {
        mediaDirectory.appendingPathComponent(name)
    }

    /// The folder holding the installed models: `$AURALKIT_MODELS_DIR`, else `$XDG_CACHE_HOME/auralkit/models`,
    /// else `~/.cache/auralkit/models`. The same rule as `ModelManager.defaultCacheDirectory`, which a test in
    /// AuralKitTests checks, so that the engine's and the audio layer's tests need not link AuralKit.
    public static var modelsDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["AURALKIT_MODELS_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return cache.appendingPathComponent("auralkit/models", isDirectory: true)
    }

    /// The CTranslate2 folder of the installed model `name` ("tiny.en", "base").
    public static func modelFolder(_ name: String) -> URL {
        modelsDirectory.appendingPathComponent(name, isDirectory: true)
    }

    /// The recording `fixtures/audio/<name>` as 16 kHz mono samples, converted as the CLI converts it.
    public static func samples(_ name: String) throws -> [Float] {
        try AudioFileLoader.loadMono16k(url: audio(name))
    }

    /// What is missing of the named recordings (in `fixtures/audio`), encoded files (in `fixtures/media`) and
    /// models (their `model.bin`), as paths; empty when everything is there.
    public static func missing(audio: [String] = [], media: [String] = [], models: [String] = []) -> [String] {
        let wanted = audio.map(Self.audio) + media.map(Self.media)
            + models.map { modelFolder($0).appendingPathComponent("model.bin") }
        return wanted.filter { !FileManager.default.fileExists(atPath: $0.path) }.map(\.path)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only when the named fixtures exist, and otherwise skips it with a message that
    /// names what is missing and how to get it (`scripts/setup`).
    public static func requiresFixtures(audio: [String] = [], media: [String] = [], models: [String] = []) -> Self {
        let missing = Fixtures.missing(audio: audio, media: media, models: models)
        return .enabled(
            if: missing.isEmpty,
            Comment(rawValue: "missing \(missing.joined(separator: ", ")); scripts/setup provides the fixtures"))
    }
}
