@testable import AuralWhisper
import Foundation
import TestSupport

/// The shared fixtures (`TestSupport.Fixtures`), named in this target so that its files need no import.
typealias Fixtures = TestSupport.Fixtures

extension Fixtures {
    /// Loaded models, shared by every test in the process (a model is immutable).
    private static let cache = ModelCache()

    /// The installed model `name`, loaded once.
    static func model(_ name: String) throws -> WhisperModel {
        try cache.model(name)
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
