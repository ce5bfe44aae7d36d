import Foundation

/// Finds installed Whisper models: a folder path as given, or a model name inside the model cache. Reads only the
/// disk; `ModelManager` installs, validates and removes models in the same cache.
public enum ModelLocator {
    /// The model cache: `$AURALKIT_MODELS_DIR`, else `$XDG_CACHE_HOME/auralkit/models`, else `~/.cache/auralkit/models`.
    public static var modelsDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["AURALKIT_MODELS_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return cache.appendingPathComponent("auralkit/models", isDirectory: true)
    }

    /// The model used when none is named: the catalog's default for files (multilingual base, which `scripts/setup`
    /// installs).
    public static let defaultModel = ModelCatalog.standard.defaults[.files]!

    /// The folder of `nameOrPath`: an existing folder path, or `<modelsDirectory>/<name>`.
    /// - Throws: `SpeechModelError.modelNotInstalled` when neither exists.
    public static func folder(for nameOrPath: String) throws -> URL {
        var isDirectory: ObjCBool = false
        if nameOrPath.contains("/") || nameOrPath.hasPrefix(".") {
            let url = URL(fileURLWithPath: nameOrPath, isDirectory: true)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SpeechModelError.modelNotInstalled(name: nameOrPath, searched: url.path)
            }
            return url
        }
        let url = modelsDirectory.appendingPathComponent(nameOrPath, isDirectory: true)
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SpeechModelError.modelNotInstalled(name: nameOrPath, searched: url.path)
        }
        return url
    }

    /// Names of the model folders in the cache, sorted.
    public static func installedModels() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: modelsDirectory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }
}
