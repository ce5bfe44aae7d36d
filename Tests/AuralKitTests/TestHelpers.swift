import AuralAudio
import AuralKit
import AuralWhisper
import Foundation
import TestSupport

extension HubServer {
    /// Bytes of the four tiny.en files, from the catalog.
    static var tinyEnglishSize: Int64 { ModelCatalog.standard.model(named: "tiny.en")!.downloadSize! }
}

/// A fresh, empty model cache folder for one test.
struct TemporaryCache: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-models-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Model folders in the cache (dot folders, such as staging, excluded).
    var modelFolders: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}

extension Fixtures {
    /// The named fixture model with the compute type of a session's default configuration, so that its text differs
    /// from a live session's only by streaming.
    static func sessionModel(_ name: String) throws -> WhisperModel {
        try WhisperModel(folder: modelFolder(name), computeType: AnalyzerConfiguration.default.computeType.resolved)
    }

    /// The text of a recording transcribed greedily with the model in `folder`.
    static func transcribe(_ name: String, with folder: URL) async throws -> String {
        let (model, samples) = try await offPool { (try WhisperModel(folder: folder), try AudioFileLoader.loadMono16k(url: audio(name))) }
        var options = DecodingOptions()
        options.beamSize = 1
        var text: [String] = []
        for try await event in Transcriber(model: model).events(samples, options: options) {
            if case .segment(let segment) = event { text.append(segment.text.trimmingCharacters(in: .whitespaces)) }
        }
        return text.joined(separator: " ")
    }
}
