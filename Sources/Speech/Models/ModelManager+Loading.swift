import AuralWhisper
import Foundation

/// How long a loaded model stays in memory once no session uses it (what `SpeechAnalyzer.Options.ModelRetention`
/// and AuralKit's `AnalyzerModelRetention` map to).
public enum ModelRetention: Sendable, Hashable {
    /// Unloaded as soon as the last session using it lets go.
    case whileInUse
    /// Kept for this long after the last session lets go, so that a session started soon after loads nothing.
    case lingering(Duration)
    /// Kept until the process ends.
    case processLifetime
}

/// Loaded models, shared by the sessions that use them.
struct LoadedModelCache {
    struct Entry {
        var model: WhisperModel
        var users: Int
        var retention: ModelRetention
        /// Bumped at every release, so that a lingering timer only unloads if nothing happened since it started.
        var generation: Int
    }

    var entries: [String: Entry] = [:]
    var loading: [String: Task<WhisperModel, Error>] = [:]

    mutating func drop(_ name: String) { entries[name] = nil }
}

extension ModelManager {
    /// Loading reads hundreds of megabytes from disk and converts weights: a queue of its own, never the
    /// cooperative pool.
    private static let loadingQueue = DispatchQueue(label: "AuralKit.ModelManager.loading", attributes: .concurrent)

    /// The loaded model `name` (a model in the cache, or a folder path: see `folder(for:)`), loading it if no session
    /// holds it; every call must be balanced by `relinquishModel(named:)`. Sessions asking for the same model share
    /// one instance. Reads only the disk.
    /// - Parameters:
    ///   - computeType: how the model computes (`.float32`, `.int8`, or `.auto`, resolved for this machine); the same
    ///     model with two compute types is two loaded models.
    ///   - retention: how long to keep the model once unused; the last caller's choice wins.
    /// - Throws: `.modelNotInstalled`, `.modelIncomplete`, or the engine's `WhisperModelError`.
    public func acquireModel(
        named modelName: String, computeType: ComputeType = .float32, retention: ModelRetention = .whileInUse
    ) async throws -> WhisperModel {
        let computeType = computeType.resolved
        let name = Self.cacheKey(modelName, computeType)
        if var entry = loadedModels.entries[name] {
            entry.users += 1
            entry.retention = retention
            entry.generation += 1
            loadedModels.entries[name] = entry
            return entry.model
        }
        let task: Task<WhisperModel, Error>
        if let running = loadedModels.loading[name] {
            task = running
        } else {
            let folder = try folder(for: modelName)
            task = Task {
                try await withCheckedThrowingContinuation { continuation in
                    Self.loadingQueue.async {
                        continuation.resume(with: Result { try WhisperModel(folder: folder, computeType: computeType) })
                    }
                }
            }
            loadedModels.loading[name] = task
        }
        let model: WhisperModel
        do {
            model = try await task.value
        } catch {
            loadedModels.loading[name] = nil
            throw error
        }
        loadedModels.loading[name] = nil
        if var entry = loadedModels.entries[name] {
            entry.users += 1
            entry.retention = retention
            entry.generation += 1
            loadedModels.entries[name] = entry
            return entry.model
        }
        loadedModels.entries[name] = .init(model: model, users: 1, retention: retention, generation: 0)
        return model
    }

    /// Lets go of a model taken with `acquireModel(named:computeType:retention:)` (with the same compute type); when
    /// no session holds it any more, it is unloaded as its retention says. Calling it more often than `acquireModel`
    /// does nothing more.
    public func relinquishModel(named modelName: String, computeType: ComputeType = .float32) {
        let name = Self.cacheKey(modelName, computeType.resolved)
        guard var entry = loadedModels.entries[name], entry.users > 0 else { return }
        entry.users -= 1
        entry.generation += 1
        loadedModels.entries[name] = entry
        guard entry.users == 0 else { return }
        switch entry.retention {
        case .whileInUse:
            loadedModels.entries[name] = nil
        case .lingering(let duration):
            let generation = entry.generation
            Task {
                try? await Task.sleep(for: duration)
                self.expire(name, generation: generation)
            }
        case .processLifetime:
            break
        }
    }

    /// Unloads every model no analysis uses now, whatever its retention (`SpeechModels.endRetention()`).
    public func endRetention() {
        loadedModels.entries = loadedModels.entries.filter { $0.value.users > 0 }
    }

    /// Names of the models loaded now, in use or retained (an int8 model's name ends in " (int8)").
    public var loadedModelNames: [String] { loadedModels.entries.keys.sorted() }

    /// The cache's name for a model loaded with a resolved compute type: float32 models keep their plain name.
    private static func cacheKey(_ name: String, _ computeType: ComputeType) -> String {
        computeType == .float32 ? name : "\(name) (\(computeType))"
    }

    private func expire(_ name: String, generation: Int) {
        guard let entry = loadedModels.entries[name], entry.users == 0, entry.generation == generation else { return }
        loadedModels.entries[name] = nil
    }
}
