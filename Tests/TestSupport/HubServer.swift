import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP server on 127.0.0.1 (scripts/hf-test-server.py) serving a model folder (by default the setup's
/// tiny.en) in Hugging Face's layout, with Range support, a throttle and injected faults; started and stopped by
/// each test, for the model manager's tests and the CLI's `aural models` tests.
public final class HubServer: @unchecked Sendable {
    /// One request the server answered.
    public struct Request: Decodable, Sendable {
        /// The HTTP method.
        public let method: String
        /// The path asked for.
        public let path: String
        /// The `Range` header, if any.
        public let range: String?
        /// The HTTP status answered.
        public let status: Int
        /// Bytes of body sent.
        public let sent: Int64
    }

    /// What the server has seen.
    public struct Stats: Decodable, Sendable {
        /// Every request, in order.
        public let requests: [Request]
        private let bytes_sent: Int64
        /// Body bytes sent in all.
        public var bytesSent: Int64 { bytes_sent }
        /// The requests for one file (through the resolve URL or the CDN it redirects to).
        public func requests(for file: String) -> [Request] { requests.filter { $0.path.hasSuffix("/" + file) } }
    }

    /// The setup's tiny.en folder (byte-identical to Systran/faster-whisper-tiny.en).
    public static var tinyEnglish: URL { Fixtures.modelFolder("tiny.en") }

    /// The server process.
    public let process = Process()
    /// Closing it (or this process dying) stops the server.
    private let input = Pipe()
    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>`, to pass as a Hugging Face endpoint.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the server on a free port, serving `root`. `rate` is in bytes per second (nil: as fast as loopback
    /// goes); each fault is one of the script's `--fault` values, such as `status:model.bin:404`. Python takes a
    /// while to start on a loaded machine, so the wait for its port runs off the cooperative pool.
    public static func start(root: URL = HubServer.tinyEnglish, rate: Int? = nil, faults: [String] = []) async throws -> HubServer {
        try await offPool { try HubServer(root: root, rate: rate, faults: faults) }
    }

    private init(root: URL, rate: Int?, faults: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Fixtures.repositoryRoot.appendingPathComponent("scripts/hf-test-server.py").path, "--root", root.path]
        if let rate { arguments += ["--rate", String(rate)] }
        for fault in faults { arguments += ["--fault", fault] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.runWithDefaultSignals()
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
    public func stats() async throws -> Stats {
        let (data, _) = try await URLSession.shared.data(from: endpoint.appendingPathComponent("_stats"))
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    /// Stops the server; its port then refuses connections.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }
}
