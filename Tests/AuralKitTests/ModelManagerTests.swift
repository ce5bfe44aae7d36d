import AuralKit
import Foundation
import TestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ModelManager installs", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct ModelManagerTests {
    static let beckett = "Ever tried, ever failed. No matter, try again. Fail again. Fail better."

    @Test("installs tiny.en with progress rising monotonically to exactly 1.0, and the model transcribes")
    func installs() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start(rate: 40_000_000)
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        let request = try #require(try await manager.installationRequest(for: "tiny.en"))
        #expect(request.progress.totalUnitCount == HubServer.tinyEnglishSize)
        // Sampled every 5 ms by a task that keeps time, at high priority like the other such tasks.
        let progress = UncheckedProgress(request.progress)
        let log = ProgressLog()
        Task(priority: .high) {
            while !log.isStopped {
                log.append(progress.value.fractionCompleted)
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        try await request.downloadAndInstall()
        log.stop()
        let samples = log.values + [request.progress.fractionCompleted]
        #expect(samples.count > 10)
        #expect(samples == samples.sorted(), "progress never goes back")
        #expect(samples.contains { $0 > 0 && $0 < 1 }, "progress is seen between 0 and 1")
        #expect(samples.last == 1.0)
        #expect(cache.modelFolders == ["tiny.en"])
        let installed = await manager.installedModels()
        #expect(installed.map(\.name) == ["tiny.en"])
        #expect(installed.first?.isComplete == true)
        #expect(installed.first?.size == HubServer.tinyEnglishSize)
        // Large files were verified against the SHA-256 the server stated through its redirect.
        let stats = try await server.stats()
        #expect(stats.requests(for: "model.bin").map(\.status) == [302, 200])
        let folder = try manager.folder(for: "tiny.en")
        #expect(try await Fixtures.transcribe("beckett.wav", with: folder) == Self.beckett)
    }

    @Test("a connection dropped mid-file resumes from the byte reached")
    func resumesDroppedConnection() async throws {
        let cache = try TemporaryCache()
        let dropAt = 20_000_000
        let server = try await HubServer.start(faults: ["drop:model.bin:\(dropAt)"])
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        try await manager.install("tiny.en")
        #expect(await manager.isInstalled("tiny.en"))
        let stats = try await server.stats()
        #expect(stats.bytesSent == HubServer.tinyEnglishSize, "no byte was sent twice")
        let ranges = stats.requests(for: "model.bin").compactMap(\.range)
        #expect(ranges.contains("bytes=\(dropAt)-"))
        let data = try Data(contentsOf: cache.url.appendingPathComponent("tiny.en/model.bin"))
        #expect(data == (try Data(contentsOf: HubServer.tinyEnglish.appendingPathComponent("model.bin"))))
    }

    /// A fault, and the cause it must give.
    static let faults: [(fault: String, check: @Sendable (ModelDownloadFailure) -> Bool)] = [
        ("status:config.json:404", { if case .httpStatus(404, let url) = $0 { url.hasSuffix("/config.json") } else { false } }),
        ("status:model.bin:500", { if case .httpStatus(500, _) = $0 { true } else { false } }),
        ("status:tokenizer.json:403", { if case .httpStatus(403, _) = $0 { true } else { false } }),
        ("corrupt:model.bin:1000000", {
            if case .checksumMismatch("model.bin", "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a", _) = $0 { true } else { false }
        }),
    ]

    @Test("an HTTP error or a wrong byte gives modelDownloadFailed with its cause, and nothing lands in the cache",
          arguments: 0..<faults.count)
    func failures(_ index: Int) async throws {
        let (fault, check) = Self.faults[index]
        let cache = try TemporaryCache()
        let server = try await HubServer.start(faults: [fault])
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        do {
            try await manager.install("tiny.en")
            Issue.record("\(fault): the install succeeded")
        } catch SpeechModelError.modelDownloadFailed(let model, let cause) {
            #expect(model == "tiny.en")
            #expect(check(cause), "\(fault) gave \(cause)")
            #expect(!cause.recoverySuggestion.isEmpty)
        }
        #expect(cache.modelFolders.isEmpty)
        #expect(await manager.installedModels().isEmpty)
        #expect(!(await manager.isInstalled("tiny.en")))
    }

    @Test("a wrong byte is caught by the server's stated SHA-256 when the catalog states none")
    func serverChecksum() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start(faults: ["corrupt:model.bin:5"])
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint, catalog: Self.unpinnedCatalog)
        let corrupted = try await offPool { try Self.sha256OfCorrupted(at: 5) }
        await #expect(throws: SpeechModelError.modelDownloadFailed(
            model: "tiny.en",
            cause: .checksumMismatch(
                file: "model.bin", expected: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
                actual: corrupted))
        ) {
            try await manager.install("tiny.en")
        }
        #expect(cache.modelFolders.isEmpty)
    }

    @Test("an endpoint with nothing listening gives modelDownloadNoInternet, and nothing lands in the cache")
    func noInternet() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start()
        server.stop()
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        do {
            try await manager.install("tiny.en")
            Issue.record("installed from a closed port")
        } catch SpeechModelError.modelDownloadNoInternet(let endpoint, _) {
            #expect(endpoint == server.endpoint.absoluteString)
        }
        #expect(cache.modelFolders.isEmpty)
    }

    @Test("HF_TOKEN-style tokens are sent as a bearer token; without one a gated repository gives 401")
    func token() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start(faults: ["token:hf_secret"])
        let anonymous = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint, token: "")
        await #expect(throws: SpeechModelError.self) { try await anonymous.install("tiny.en") }
        let authorized = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint, token: "hf_secret")
        try await authorized.install("tiny.en")
        #expect(cache.modelFolders == ["tiny.en"])
        let statuses = try await server.stats().requests.map(\.status)
        #expect(statuses.first == 401)
    }

    @Test("two concurrent installs of one model make one download")
    func sharedDownload() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start(rate: 60_000_000)
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        async let first = manager.install("tiny.en")
        async let second = manager.install("tiny.en")
        let folders = try await [first, second]
        #expect(folders[0] == folders[1])
        let stats = try await server.stats()
        for file in ["config.json", "tokenizer.json", "vocabulary.txt"] {
            #expect(stats.requests(for: file).count == 1, "\(file)")
        }
        #expect(stats.requests(for: "model.bin").count == 2, "one redirect and one CDN request")
        #expect(stats.bytesSent == HubServer.tinyEnglishSize)
    }

    @Test("a cancelled install keeps its staged bytes, and the next install resumes from them")
    func cancelAndResume() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start(rate: 8_000_000)
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        let request = try #require(try await manager.installationRequest(for: "tiny.en"))
        let install = Task { try await request.downloadAndInstall() }
        let progress = UncheckedProgress(request.progress)
        Task(priority: .high) {  // keeps time: it must cancel before the download ends
            _ = await Poll.until(timeout: 300, every: .milliseconds(2)) { progress.value.fractionCompleted >= 0.3 }
            install.cancel()
        }
        await #expect(throws: CancellationError.self) { try await install.value }
        #expect(cache.modelFolders.isEmpty)
        let partial = cache.url.appendingPathComponent(".staging/tiny.en/model.bin.partial")
        let staged = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber).int64Value
        #expect(staged > 0)

        try await manager.install("tiny.en")
        #expect(cache.modelFolders == ["tiny.en"])
        #expect(!FileManager.default.fileExists(atPath: cache.url.appendingPathComponent(".staging/tiny.en").path))
        let stats = try await server.stats()
        let resumed = stats.requests(for: "model.bin").compactMap(\.range).compactMap { Int64($0.dropFirst(6).dropLast()) }
        #expect(resumed.contains { $0 >= staged }, "resumed at or after the staged byte \(staged): \(resumed)")
        #expect(stats.bytesSent < HubServer.tinyEnglishSize + 4_000_000, "the first bytes were not downloaded again")
    }

    @Test("an installed model makes no network request: install, folder, load and transcribe work with the server gone")
    func offlineOnceInstalled() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start()
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        try await manager.install("tiny.en")
        let before = try await server.stats().requests.count

        #expect(try await manager.installationRequest(for: "tiny.en") == nil)
        try await manager.install("tiny.en")
        let model = try await manager.acquireModel(named: "tiny.en")
        #expect(model.languages == ["en"])
        await manager.relinquishModel(named: "tiny.en")
        #expect(try await Fixtures.transcribe("beckett.wav", with: try manager.folder(for: "tiny.en")) == Self.beckett)
        #expect(try await server.stats().requests.count == before, "no request since the install (stats are not counted)")

        server.stop()
        let offline = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        let folder = try await offline.install("tiny.en")
        #expect(try await Fixtures.transcribe("beckett.wav", with: folder) == Self.beckett)
    }

    @Test("remove deletes the model and its staging; an unknown model and a reserved one are refused")
    func remove() async throws {
        let cache = try TemporaryCache()
        let server = try await HubServer.start()
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: server.endpoint)
        try await manager.install("tiny.en")
        let reservation = try await manager.reserve(locale: Locale(identifier: "en_US"))
        #expect(reservation.modelName == "tiny.en")
        await #expect(throws: SpeechModelError.modelReserved(name: "tiny.en")) { try await manager.remove("tiny.en") }
        await manager.release(reservation)
        try await manager.remove("tiny.en")
        #expect(cache.modelFolders.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.url.path)) ?? []).allSatisfy { $0 == ".staging" })
        await #expect(throws: SpeechModelError.self) { try await manager.remove("tiny.en") }
        await #expect(throws: SpeechModelError.unknownModel(name: "huge", available: ModelCatalog.standard.models.map(\.name))) {
            try await manager.install("huge")
        }
    }

    @Test("an incomplete folder is listed with its problems and not treated as installed")
    func validates() async throws {
        let cache = try TemporaryCache()
        let folder = cache.url.appendingPathComponent("tiny.en")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: HubServer.tinyEnglish.appendingPathComponent("config.json"), to: folder.appendingPathComponent("config.json"))
        try Data(count: 10).write(to: folder.appendingPathComponent("model.bin"))
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: URL(string: "http://127.0.0.1:9")!)
        let listed = try #require(await manager.installedModels().first)
        #expect(!listed.isComplete)
        #expect(listed.problems.contains("model.bin has 10 bytes, not 75537502"))
        #expect(listed.problems.contains("vocabulary.txt is missing"))
        #expect(!(await manager.isInstalled("tiny.en")))
        #expect(throws: SpeechModelError.self) { try manager.folder(for: "tiny.en") }
    }

    @Test("folder(for:) takes a name in the cache or a folder path, and checks either for completeness")
    func resolvesNamesAndPaths() throws {
        let cache = try TemporaryCache()
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: URL(string: "http://127.0.0.1:9")!)
        // A complete folder given by path, wherever it is (the setup's tiny.en).
        #expect(try manager.folder(for: HubServer.tinyEnglish.path).path == HubServer.tinyEnglish.path)
        // A path without a folder, and a name that is not in this cache.
        let nowhere = cache.url.appendingPathComponent("nothing-here").path
        #expect(throws: SpeechModelError.modelNotInstalled(name: nowhere, searched: nowhere)) { try manager.folder(for: nowhere) }
        #expect(throws: SpeechModelError.modelNotInstalled(name: "tiny.en", searched: cache.url.appendingPathComponent("tiny.en").path)) {
            try manager.folder(for: "tiny.en")
        }
        // A half-copied folder: by path, the engine's four files are required; by name, the catalog's sizes too.
        let partial = cache.url.appendingPathComponent("tiny.en")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        for file in ["config.json", "tokenizer.json"] {
            try FileManager.default.copyItem(at: HubServer.tinyEnglish.appendingPathComponent(file), to: partial.appendingPathComponent(file))
        }
        try Data(count: 10).write(to: partial.appendingPathComponent("model.bin"))
        #expect(throws: SpeechModelError.modelIncomplete(name: partial.path, problems: ["vocabulary.txt is missing"])) {
            try manager.folder(for: partial.path)
        }
        #expect(throws: SpeechModelError.modelIncomplete(name: "tiny.en", problems: ["model.bin has 10 bytes, not 75537502", "vocabulary.txt is missing"])) {
            try manager.folder(for: "tiny.en")
        }
        #expect(ModelManager.isFolderPath("./tiny.en") && ModelManager.isFolderPath("models/tiny.en"))
        #expect(!ModelManager.isFolderPath("tiny.en") && !ModelManager.isFolderPath("distil-large-v3"))
    }

    @Test("the default cache follows the same rule as the tests' fixtures (AURALKIT_MODELS_DIR, XDG_CACHE_HOME, ~/.cache)")
    func defaultCache() {
        #expect(ModelManager.defaultCacheDirectory == Fixtures.modelsDirectory)
        #expect(ModelManager().cacheDirectory == Fixtures.modelsDirectory)
    }

    /// tiny.en with no sizes or checksums: the manager must trust and check what the server states.
    static let unpinnedCatalog = ModelCatalog(
        models: [
            ModelDescriptor(
                name: "tiny.en", repository: "Systran/faster-whisper-tiny.en", revision: "main",
                files: ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt"].map { ModelFileSpec($0, size: nil) },
                languages: ["en"], parameterMillions: 39)
        ],
        defaults: [.liveEnglish: "tiny.en"])

    static func sha256OfCorrupted(at offset: Int) throws -> String {
        var data = try Data(contentsOf: HubServer.tinyEnglish.appendingPathComponent("model.bin"))
        data[offset] ^= 0xFF
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID()).bin")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.runWithDefaultSignals()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitForExit()
        return String(String(decoding: output, as: UTF8.self).prefix(64))
    }
}

/// A `Progress` read from another task (`Progress` is thread-safe).
private struct UncheckedProgress: @unchecked Sendable {
    let value: Progress
    init(_ value: Progress) { self.value = value }
}

/// Progress values written by a sampling thread.
private final class ProgressLog: Sendable {
    private let state = Mutex((values: [Double](), stopped: false))
    func append(_ value: Double) { state.withLock { $0.values.append(value) } }
    func stop() { state.withLock { $0.stopped = true } }
    var isStopped: Bool { state.withLock { $0.stopped } }
    var values: [Double] { state.withLock { $0.values } }
}
