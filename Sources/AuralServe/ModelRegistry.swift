import AuralWhisper
import Foundation
import Speech

/// The models a server answers with: each loaded once, on first use, and shared by every request. The models come from
/// the `ModelManager`'s cache of loaded models, the one the server's live sessions take theirs from, so a model that
/// serves both files and live sockets is in memory once.
final class ModelRegistry: @unchecked Sendable {  // `loaded` is guarded by `lock`
    /// Names that mean the default model, as clients written for OpenAI send them.
    static let defaultAliases: Set<String> = ["whisper-1", "default"]

    let defaultModel: String
    let computeType: ComputeType
    let threadsPerTranscription: Int?
    private let manager: ModelManager
    private let lock = NSLock()
    private var loaded: [String: Transcriber] = [:]

    init(defaultModel: String, computeType: ComputeType, threadsPerTranscription: Int?, manager: ModelManager) {
        self.defaultModel = defaultModel
        self.computeType = computeType
        self.threadsPerTranscription = threadsPerTranscription
        self.manager = manager
    }

    /// The catalog name a request's `model` means: the default for nil or an alias, the name for a
    /// Hugging Face repository the catalog knows (`Systran/faster-whisper-tiny.en`), else the name as sent.
    func resolve(_ requested: String?) -> String {
        guard let requested, !Self.defaultAliases.contains(requested) else { return defaultModel }
        if let model = manager.catalog.models.first(where: { $0.repository == requested }) { return model.name }
        return requested
    }

    /// The transcriber of an installed model, loading it the first time.
    /// - Throws: `APIError` 404 `model_not_found` for a model that is not installed, 500 for one that fails to load.
    func transcriber(for requested: String?) throws -> (name: String, transcriber: Transcriber) {
        let name = resolve(requested)
        lock.lock()
        defer { lock.unlock() }
        if let transcriber = loaded[name] { return (name, transcriber) }
        guard !name.contains("/"), !name.hasPrefix(".") else { throw modelNotFound(requested ?? name) }
        do {
            _ = try manager.folder(for: name)
        } catch {
            throw modelNotFound(requested ?? name)
        }
        do {
            let transcriber = Transcriber(model: try sharedModel(name), threads: threadsPerTranscription)
            loaded[name] = transcriber
            return (name, transcriber)
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            throw APIError.internalError("The model '\(name)' is installed but failed to load: \(reason) Reinstall it with 'aural models install \(name)'.")
        }
    }

    /// The model from the manager's cache, kept for the process's lifetime, waiting for it on this thread (a request
    /// thread of the server, never Swift's cooperative pool; the manager loads on a queue of its own).
    private func sharedModel(_ name: String) throws -> WhisperModel {
        let outcome = ModelOutcome()
        Task { [manager, computeType] in
            do {
                outcome.result = .success(
                    try await manager.acquireModel(named: name, computeType: computeType, retention: .processLifetime))
            } catch {
                outcome.result = .failure(error)
            }
            outcome.done.signal()
        }
        outcome.done.wait()
        return try outcome.result!.get()
    }

    /// The installed models, in the catalog's order (read from disk at each call).
    func installedModels() -> [ModelDescriptor] {
        manager.catalog.models.filter { (try? manager.folder(for: $0.name)) != nil }
    }

    /// The installed models' names, in the catalog's order.
    func installedNames() -> [String] { installedModels().map(\.name) }

    private func modelNotFound(_ name: String) -> APIError {
        let installed = installedNames()
        return APIError(
            status: 404,
            message: "The model '\(name)' is not installed on this server. Installed: \(installed.isEmpty ? "none" : installed.joined(separator: ", ")); install others with 'aural models install NAME'.",
            type: "invalid_request_error", param: "model", code: "model_not_found")
    }
}

/// A load's result: the task writes it before it signals `done`, the waiting thread reads it after.
private final class ModelOutcome: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var result: Result<WhisperModel, Error>?
}
