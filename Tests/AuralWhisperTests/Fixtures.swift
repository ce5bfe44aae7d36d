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
