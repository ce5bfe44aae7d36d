import AuralKit
import Foundation
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP server on 127.0.0.1 (scripts/hf-test-server.py) serving the setup's tiny.en files in Hugging Face's
/// layout, with Range support, a throttle and injected faults; started and stopped by each test.
final class HubServer: @unchecked Sendable {
    struct Request: Decodable {
        let method: String
        let path: String
        let range: String?
        let status: Int
        let sent: Int64
    }

    struct Stats: Decodable {
        let requests: [Request]
        let bytes_sent: Int64
        var bytesSent: Int64 { bytes_sent }
        /// The requests for one file (through the resolve URL or the CDN it redirects to).
        func requests(for file: String) -> [Request] { requests.filter { $0.path.hasSuffix("/" + file) } }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The setup's tiny.en folder (byte-identical to Systran/faster-whisper-tiny.en).
    static var tinyEnglish: URL { ModelLocator.modelsDirectory.appendingPathComponent("tiny.en", isDirectory: true) }

    /// Bytes of the four tiny.en files.
    static var tinyEnglishSize: Int64 { ModelCatalog.standard.model(named: "tiny.en")!.downloadSize! }

    let process = Process()
    /// Closing it (or this process dying) stops the server.
    private let input = Pipe()
    let port: Int
    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the server. `rate` is in bytes per second (nil: as fast as loopback goes).
    init(root: URL = HubServer.tinyEnglish, rate: Int? = nil, faults: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.repositoryRoot.appendingPathComponent("scripts/hf-test-server.py").path, "--root", root.path]
        if let rate { arguments += ["--rate", String(rate)] }
        for fault in faults { arguments += ["--fault", fault] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the test server did not print its port"])
        }
        self.port = port
    }

    deinit { stop() }

    /// What the server has seen so far.
    func stats() async throws -> Stats {
        let (data, _) = try await URLSession.shared.data(from: endpoint.appendingPathComponent("_stats"))
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    /// Stops the server; its port then refuses connections.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }
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

enum Fixtures {
    static func audio(_ name: String) -> URL { HubServer.repositoryRoot.appendingPathComponent("fixtures/audio/\(name)") }

    /// The text of a recording transcribed greedily with the model in `folder`.
    static func transcribe(_ name: String, with folder: URL) async throws -> String {
        let model = try WhisperModel(folder: folder)
        let samples = try AudioFileLoader.loadMono16k(url: audio(name))
        var options = DecodingOptions()
        options.beamSize = 1
        var text: [String] = []
        for try await event in Transcriber(model: model).events(samples, options: options) {
            if case .segment(let segment) = event { text.append(segment.text.trimmingCharacters(in: .whitespaces)) }
        }
        return text.joined(separator: " ")
    }
}
