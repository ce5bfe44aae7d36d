import Foundation

/// Where tests find the models and recordings that `scripts/setup` installs.
enum Fixtures {
    /// The folder holding installed models: `$AURALKIT_MODELS_DIR`, else
    /// `$XDG_CACHE_HOME/auralkit/models`, else `~/.cache/auralkit/models`.
    static var modelsDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["AURALKIT_MODELS_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let cache: URL
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            cache = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            cache = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return cache.appendingPathComponent("auralkit/models", isDirectory: true)
    }

    /// The CTranslate2 folder of the installed model `name` ("tiny.en", "base").
    static func modelFolder(_ name: String) -> URL {
        modelsDirectory.appendingPathComponent(name, isDirectory: true)
    }

    /// The repository's root folder, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // AuralWhisperTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The recording `fixtures/audio/<name>` ("two_cities.wav").
    static func audio(_ name: String) -> URL {
        repositoryRoot.appendingPathComponent("fixtures/audio/\(name)")
    }
}

import AuralAudio
@testable import AuralWhisper

extension Fixtures {
    /// Loaded models, shared by every test in the process (a model is immutable).
    private static let cache = ModelCache()

    /// The installed model `name`, loaded once.
    static func model(_ name: String) throws -> WhisperModel {
        try cache.model(name)
    }

    /// The recording `fixtures/audio/<name>` as 16 kHz mono samples (converted as the CLI converts it).
    static func samples(_ name: String) throws -> [Float] {
        try AudioFileLoader.loadMono16k(url: audio(name))
    }
}

private final class ModelCache: @unchecked Sendable {
    private let lock = NSLock()
    private var models: [String: WhisperModel] = [:]

    func model(_ name: String) throws -> WhisperModel {
        try lock.withLock {
            if let model = models[name] { return model }
            let model = try WhisperModel(folder: Fixtures.modelFolder(name))
            models[name] = model
            return model
        }
    }
}
