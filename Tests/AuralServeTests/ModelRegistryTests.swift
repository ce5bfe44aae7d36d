import AuralWhisper
import Foundation
import Speech
import Testing

@testable import AuralServe

/// The server's models: file requests and live sessions share one loaded copy.
@Suite("aural serve's models")
struct ModelRegistryTests {
    @Test("a file request's model is the instance live sessions get from the manager")
    func oneCopy() async throws {
        let manager = ModelManager.shared
        let registry = ModelRegistry(
            defaultModel: "tiny.en", computeType: .auto, threadsPerTranscription: 1, manager: manager)
        let forFiles = try await Task.detached { try registry.transcriber(for: "whisper-1") }.value
        #expect(forFiles.name == "tiny.en")
        let forLive = try await manager.acquireModel(named: "tiny.en", computeType: .auto)
        defer { Task { await manager.relinquishModel(named: "tiny.en", computeType: .auto) } }
        #expect(forLive === forFiles.transcriber.model)
        let loadedNames = await manager.loadedModelNames.filter { $0.hasPrefix("tiny.en") }
        #expect(loadedNames.count == 1)
    }

    @Test("a model that is not installed is a 404 naming the installed ones")
    func notInstalled() async throws {
        let registry = ModelRegistry(
            defaultModel: "tiny.en", computeType: .auto, threadsPerTranscription: 1, manager: .shared)
        let error = await #expect(throws: APIError.self) {
            try await Task.detached { try registry.transcriber(for: "large-v9") }.value
        }
        #expect(error?.status == 404 && error?.code == "model_not_found")
        #expect(error?.message.contains("tiny.en") == true)
    }
}
