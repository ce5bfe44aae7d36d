import AuralVAD
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Installs, lists, validates and removes Whisper models, resolves locales to them, and keeps loaded models for the
/// sessions that use them; AuralKit's counterpart of Apple's `AssetInventory`.
///
/// ```swift
/// let manager = ModelManager()                       // $AURALKIT_MODELS_DIR or $XDG_CACHE_HOME/auralkit/models
/// let model = try await manager.model(for: Locale(identifier: "en_GB"))        // tiny.en
/// if let request = try await manager.installationRequest(for: model.name) {
///     print(request.progress.fractionCompleted)   // observe while it runs
///     try await request.downloadAndInstall()
/// }
/// let whisper = try await manager.acquireModel(named: model.name, retention: .lingering(.seconds(60)))
/// ```
///
/// Installed models never touch the network: `install` returns at once for a model whose folder is complete, and
/// `folder(for:)` (the one way from a model name or folder path to a checked folder), `acquireModel` and the
/// listing read only the disk. Downloads come from a Hugging Face-compatible endpoint
/// (`<endpoint>/<repo>/resolve/<revision>/<file>`) into `<cache>/.staging/<name>/`, resume from the byte
/// reached, are checked for size and SHA-256, and become `<cache>/<name>` by one rename, so the cache never holds
/// half a model; a process killed mid-download leaves only staged files, which the next install resumes.
public actor ModelManager {
    /// The manager of the default cache, endpoint and catalog.
    public static let shared = ModelManager()

    /// The folder that holds one folder per installed model.
    public nonisolated let cacheDirectory: URL
    /// The Hugging Face-compatible server models are downloaded from.
    public nonisolated let endpoint: URL
    /// The models that can be installed.
    public nonisolated let catalog: ModelCatalog
    /// How many distinct locales can be reserved at once.
    public nonisolated let maxReservedLocales: Int

    nonisolated let token: String?
    nonisolated let timeout: TimeInterval
    private var installs: [String: InstallJob] = [:]
    var reservations = ReservationBook()
    /// The reservations the app made through `AssetInventory.reserve(locale:)`, by supported locale.
    var appReservations: [Locale: ModelReservation] = [:]
    var loadedModels = LoadedModelCache()

    /// The model cache used when none is given: `$AURALKIT_MODELS_DIR`, else `$XDG_CACHE_HOME/auralkit/models`, else
    /// `~/.cache/auralkit/models` (an empty variable counts as unset). Read from the environment at each call.
    public nonisolated static var defaultCacheDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["AURALKIT_MODELS_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return cache.appendingPathComponent("auralkit/models", isDirectory: true)
    }

    /// A manager.
    /// - Parameters:
    ///   - cacheDirectory: nil for `defaultCacheDirectory`.
    ///   - endpoint: nil for `$HF_ENDPOINT`, else `https://huggingface.co`.
    ///   - catalog: the installable models; a mirror with other files can pass its own.
    ///   - token: sent as `Authorization: Bearer` to the endpoint (not to the CDN it redirects to); nil for `$HF_TOKEN`.
    ///   - maxReservedLocales: the most distinct locales sessions may reserve at once (default 4).
    ///   - timeout: seconds without data before a request is given up (default 30).
    public init(
        cacheDirectory: URL? = nil, endpoint: URL? = nil, catalog: ModelCatalog = .standard, token: String? = nil,
        maxReservedLocales: Int = 4, timeout: TimeInterval = 30
    ) {
        let environment = ProcessInfo.processInfo.environment
        self.cacheDirectory = cacheDirectory ?? Self.defaultCacheDirectory
        self.endpoint = endpoint
            ?? environment["HF_ENDPOINT"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
            ?? URL(string: "https://huggingface.co")!
        self.catalog = catalog
        self.token = token ?? environment["HF_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.maxReservedLocales = maxReservedLocales
        self.timeout = timeout
    }

    // MARK: - Installed models

    /// The Silero VAD weights in this manager's cache: `<cacheDirectory>/silero-vad/silero_vad.safetensors`, which
    /// `scripts/setup` installs. Load them with `SileroVAD(contentsOf:)`; a missing or damaged file throws
    /// `SileroVADError` with a recovery suggestion.
    public nonisolated var voiceActivityModelURL: URL {
        SileroVAD.modelURL(inModelsDirectory: cacheDirectory)
    }

    /// The models in the cache, by name, each checked against the catalog (every file present, sizes right).
    /// Folders whose names start with a dot (staging) are skipped, and so is the voice activity detector's
    /// (`SileroVAD.modelFolderName`). Reads only the disk.
    public func installedModels() -> [InstalledModel] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != SileroVAD.modelFolderName }.sorted().compactMap { name in
            let folder = cacheDirectory.appendingPathComponent(name, isDirectory: true)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            let descriptor = catalog.model(named: name)
            return InstalledModel(
                name: name, folder: folder, size: Self.folderSize(folder), descriptor: descriptor,
                problems: Self.problems(in: folder, descriptor: descriptor))
        }
    }

    /// Whether `name` is installed and complete.
    public func isInstalled(_ name: String) -> Bool {
        let folder = cacheDirectory.appendingPathComponent(name, isDirectory: true)
        return FileManager.default.fileExists(atPath: folder.path) && Self.problems(in: folder, descriptor: catalog.model(named: name)).isEmpty
    }

    /// The folder of a complete model: `nameOrPath` is the name of a model in the cache (`tiny.en`), or the path of
    /// a CTranslate2 model folder when it contains a `/` or starts with `.` (`./my-model`, `/models/tiny.en`).
    ///
    /// Either way the folder is checked before it is returned: every file the catalog lists, with the catalog's
    /// sizes, for a catalog model in the cache; `model.bin`, `config.json`, `tokenizer.json` and `vocabulary.txt`
    /// for a folder path or a model the catalog does not know. Reads only the disk; never downloads.
    /// - Throws: `SpeechModelError.modelNotInstalled` when there is no such folder, `.modelIncomplete` naming each
    ///   missing file or wrong size.
    public nonisolated func folder(for nameOrPath: String) throws -> URL {
        let isPath = Self.isFolderPath(nameOrPath)
        let folder = isPath
            ? URL(fileURLWithPath: nameOrPath, isDirectory: true)
            : cacheDirectory.appendingPathComponent(nameOrPath, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SpeechModelError.modelNotInstalled(name: nameOrPath, searched: folder.path)
        }
        let problems = Self.problems(in: folder, descriptor: isPath ? nil : catalog.model(named: nameOrPath))
        guard problems.isEmpty else { throw SpeechModelError.modelIncomplete(name: nameOrPath, problems: problems) }
        return folder
    }

    /// Whether `folder(for:)` takes `nameOrPath` as a folder path (it contains a `/` or starts with `.`) rather than
    /// the name of a model in the cache.
    public nonisolated static func isFolderPath(_ nameOrPath: String) -> Bool {
        nameOrPath.contains("/") || nameOrPath.hasPrefix(".")
    }

    /// Removes an installed model and anything staged for it; cancels its download if one is running.
    /// - Throws: `.modelReserved` while a session holds a reservation on it, `.modelNotInstalled` when there is
    ///   nothing to remove.
    public func remove(_ name: String) throws {
        guard !reservations.all.contains(where: { $0.modelName == name }) else { throw SpeechModelError.modelReserved(name: name) }
        installs[name]?.task?.cancel()
        loadedModels.drop(name)
        let folder = cacheDirectory.appendingPathComponent(name, isDirectory: true)
        let staging = stagingDirectory(for: name)
        let hadStaging = FileManager.default.fileExists(atPath: staging.path)
        try? FileManager.default.removeItem(at: staging)
        guard FileManager.default.fileExists(atPath: folder.path) else {
            if hadStaging { return }
            throw SpeechModelError.modelNotInstalled(name: name, searched: folder.path)
        }
        do {
            // Rename first, so that a crash halfway through deleting leaves a dot folder, never a partial model.
            let trash = cacheDirectory.appendingPathComponent(".removing-\(name)-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.moveItem(at: folder, to: trash)
            try FileManager.default.removeItem(at: trash)
        } catch {
            throw SpeechModelError.modelDownloadFailed(model: name, cause: .fileSystem(path: folder.path, reason: error.localizedDescription))
        }
    }

    // MARK: - Locales

    /// The model for `locale`: the smallest installed one that transcribes its language, else the catalog's default
    /// for `use` (by default live English for English, other languages otherwise), else the smallest that does.
    /// - Throws: `SpeechModelError.unsupportedLocale` when no model transcribes the language.
    public func model(for locale: Locale, use: ModelUse? = nil) throws -> ModelDescriptor {
        let candidates = catalog.models(supporting: locale)
        guard !candidates.isEmpty else { throw SpeechModelError.unsupportedLocale(locale) }
        if let installed = candidates.filter({ isInstalled($0.name) }).min(by: { ($0.downloadSize ?? .max) < ($1.downloadSize ?? .max) }) {
            return installed
        }
        let english = ModelCatalog.whisperLanguage(for: locale) == "en"
        if let preferred = catalog.defaultModel(for: use ?? (english ? .liveEnglish : .otherLanguages)),
            candidates.contains(preferred)
        {
            return preferred
        }
        return candidates[0]
    }

    // MARK: - Installing

    /// A request to install `name` whose `progress` can be observed before and while it runs; nil when the model is
    /// already installed. Requests for the same model share one download and one `Progress`.
    /// - Throws: `SpeechModelError.unknownModel`.
    public func installationRequest(for name: String) throws -> ModelInstallationRequest? {
        guard catalog.model(named: name) != nil else {
            throw SpeechModelError.unknownModel(name: name, available: catalog.models.map(\.name))
        }
        if isInstalled(name) { return nil }
        return ModelInstallationRequest(modelName: name, progress: job(for: name).progress, manager: self)
    }

    /// The running or prepared download's progress for `name`, or nil.
    public func downloadProgress(for name: String) -> Progress? { installs[name]?.progress }

    /// Installs `name` unless it is installed, and returns its folder. Concurrent calls for one model share one
    /// download. Cancelling the calling task cancels the download once no other caller waits for it; the staged
    /// bytes stay, and the next install resumes from them.
    /// - Throws: `SpeechModelError` (`unknownModel`, `modelDownloadNoInternet`, `modelDownloadFailed`) or
    ///   `CancellationError`.
    @discardableResult
    public func install(_ name: String) async throws -> URL {
        guard let descriptor = catalog.model(named: name) else {
            throw SpeechModelError.unknownModel(name: name, available: catalog.models.map(\.name))
        }
        if isInstalled(name) { return cacheDirectory.appendingPathComponent(name, isDirectory: true) }
        let job = job(for: name)
        let task: Task<URL, Error>
        if let running = job.task {
            task = running
        } else {
            task = Task { try await self.runInstall(descriptor, job: job) }
            job.task = task
        }
        job.waiters += 1
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.waiterCancelled(name) }
        }
    }

    /// Cancels the download of `name`, if one runs; its staged bytes stay for the next install.
    public func cancelInstall(_ name: String) {
        installs[name]?.task?.cancel()
    }

    private func job(for name: String) -> InstallJob {
        if let job = installs[name] { return job }
        let job = InstallJob(progress: Progress(totalUnitCount: catalog.model(named: name)?.downloadSize ?? 0))
        installs[name] = job
        return job
    }

    private func waiterCancelled(_ name: String) {
        guard let job = installs[name] else { return }
        job.cancelledWaiters += 1
        if job.cancelledWaiters >= job.waiters { job.task?.cancel() }
    }

    private func runInstall(_ descriptor: ModelDescriptor, job: InstallJob) async throws -> URL {
        defer { if installs[descriptor.name] === job { installs[descriptor.name] = nil } }
        do {
            // Another process may be installing the same model: wait for it, then use what it installed.
            let lockFile = cacheDirectory.appendingPathComponent(".staging/\(descriptor.name).lock")
            let lock: InstallLock
            do {
                lock = try await InstallLock.acquire(lockFile)
            } catch {
                throw FileDownloadError.fileSystem(path: lockFile.path, reason: error.localizedDescription)
            }
            defer { withExtendedLifetime(lock) {} }
            if isInstalled(descriptor.name) { return cacheDirectory.appendingPathComponent(descriptor.name, isDirectory: true) }
            return try await performInstall(descriptor, progress: job.progress)
        } catch let error as FileDownloadError {
            throw SpeechModelError.modelDownloadFailed(model: descriptor.name, cause: error.failure)
        } catch let error as URLError {
            throw SpeechModelError.modelDownloadNoInternet(endpoint: endpoint.absoluteString, reason: error.localizedDescription)
        }
    }

    func stagingDirectory(for name: String) -> URL {
        cacheDirectory.appendingPathComponent(".staging", isDirectory: true).appendingPathComponent(name, isDirectory: true)
    }

    private func performInstall(_ descriptor: ModelDescriptor, progress: Progress) async throws -> URL {
        let staging = stagingDirectory(for: descriptor.name)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw FileDownloadError.fileSystem(path: staging.path, reason: error.localizedDescription)
        }
        let tracker = ProgressTracker(progress: progress)
        var remaining: Int64 = 0
        for file in descriptor.files {
            let staged = Self.fileSize(staging.appendingPathComponent(file.name))
                ?? Self.fileSize(staging.appendingPathComponent(file.name + ".partial")) ?? 0
            tracker.update(file.name, bytes: staged)
            if let size = file.size { remaining += max(0, size - staged) }
        }
        if let free = Self.freeSpace(at: staging), remaining > free {
            throw FileDownloadError.insufficientDiskSpace(required: remaining, available: free, path: cacheDirectory.path)
        }
        for file in descriptor.files {
            try Task.checkCancellation()
            let destination = staging.appendingPathComponent(file.name)
            if let size = Self.fileSize(destination), file.size == nil || size == file.size {
                continue  // verified before it was renamed from .partial
            }
            let url = fileURL(repository: descriptor.repository, revision: descriptor.revision, file: file.name)
            let downloader = FileDownloader(
                FileDownloader.Job(
                    url: url, destination: destination, expectedSize: file.size, expectedSHA256: file.sha256, token: token,
                    timeout: timeout, freeSpace: { Self.freeSpace(at: $0) }),
                onProgress: { [name = file.name] bytes in tracker.update(name, bytes: bytes) })
            try await downloader.run()
        }
        try Self.writeVocabularyText(in: staging)
        let folder = cacheDirectory.appendingPathComponent(descriptor.name, isDirectory: true)
        do {
            if FileManager.default.fileExists(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder)  // an incomplete folder from outside AuralKit
            }
            try FileManager.default.moveItem(at: staging, to: folder)
        } catch {
            throw FileDownloadError.fileSystem(path: folder.path, reason: error.localizedDescription)
        }
        tracker.finish()
        return folder
    }

    nonisolated func fileURL(repository: String, revision: String, file: String) -> URL {
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: "\(base)/\(repository)/resolve/\(revision)/\(file)")!
    }

    // MARK: - File-system helpers

    static func fileSize(_ url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }

    static func folderSize(_ folder: URL) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.reduce(0) { $0 + (fileSize(folder.appendingPathComponent($1)) ?? 0) }
    }

    /// Free bytes for an unprivileged writer in the file system holding `url` (or its nearest existing parent).
    static func freeSpace(at url: URL) -> Int64? {
        var probe = url
        while !FileManager.default.fileExists(atPath: probe.path), probe.pathComponents.count > 1 { probe.deleteLastPathComponent() }
        var stats = statvfs()
        guard statvfs(probe.path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    /// What is wrong with an installed folder: missing files, wrong sizes. Empty when it is complete.
    static func problems(in folder: URL, descriptor: ModelDescriptor?) -> [String] {
        let required = descriptor?.files ?? ["model.bin", "config.json", "tokenizer.json", "vocabulary.txt"].map { ModelFileSpec($0, size: nil) }
        var problems: [String] = []
        for file in required {
            guard let size = fileSize(folder.appendingPathComponent(file.name)) else {
                problems.append("\(file.name) is missing")
                continue
            }
            if let expected = file.size, size != expected { problems.append("\(file.name) has \(size) bytes, not \(expected)") }
        }
        return problems
    }

    /// Writes `vocabulary.txt` (one token per line, what the engine reads) from a `vocabulary.json` token array, for
    /// the large-v3 family, whose repositories hold only the JSON.
    static func writeVocabularyText(in folder: URL) throws {
        let json = folder.appendingPathComponent("vocabulary.json")
        let text = folder.appendingPathComponent("vocabulary.txt")
        guard FileManager.default.fileExists(atPath: json.path), !FileManager.default.fileExists(atPath: text.path) else { return }
        guard let data = try? Data(contentsOf: json), let tokens = try? JSONSerialization.jsonObject(with: data) as? [String] else {
            throw FileDownloadError.fileSystem(path: json.path, reason: "vocabulary.json is not an array of tokens")
        }
        do {
            try Data((tokens.joined(separator: "\n") + "\n").utf8).write(to: text, options: .atomic)
        } catch {
            throw FileDownloadError.fileSystem(path: text.path, reason: error.localizedDescription)
        }
    }
}

/// A model folder found in the cache.
public struct InstalledModel: Sendable, Hashable, Identifiable {
    /// The folder's name, which is the model's name.
    public let name: String
    /// Where it is.
    public let folder: URL
    /// Bytes of its files.
    public let size: Int64
    /// Its catalog entry, or nil for a folder the catalog does not know (a model you converted yourself).
    public let descriptor: ModelDescriptor?
    /// What is wrong with it (missing files, wrong sizes); empty when it is complete.
    public let problems: [String]
    /// Whether every file is there with the right size.
    public var isComplete: Bool { problems.isEmpty }
    /// The identity used by `Identifiable`: the name.
    public var id: String { name }
}

/// A pending installation whose progress can be watched before and while it runs (like Apple's
/// `AssetInstallationRequest`). Get one from `ModelManager.installationRequest(for:)`.
public final class ModelInstallationRequest: @unchecked Sendable {
    /// The model it installs.
    public let modelName: String
    /// Bytes downloaded out of the total, rising to exactly 1.0 when the model is installed; what a session exposes as
    /// `modelDownloadProgress`. Updated from the download's own queue.
    public let progress: Progress
    private let manager: ModelManager

    init(modelName: String, progress: Progress, manager: ModelManager) {
        self.modelName = modelName
        self.progress = progress
        self.manager = manager
    }

    /// Downloads and installs the model (sharing a download already running); safe to call more than once.
    /// - Throws: as `ModelManager.install(_:)`.
    public func downloadAndInstall() async throws {
        try await manager.install(modelName)
    }
}

/// One model's download in flight, shared by every caller that asked for it.
private final class InstallJob {
    let progress: Progress
    var task: Task<URL, Error>?
    var waiters = 0
    var cancelledWaiters = 0

    init(progress: Progress) { self.progress = progress }
}

/// Sums the bytes of each file into a `Progress` that never goes backwards (a server that ignores a range makes a
/// file restart from zero; the progress then holds until it is passed again).
private final class ProgressTracker: @unchecked Sendable {
    private let progress: Progress
    private let lock = NSLock()
    private var bytes: [String: Int64] = [:]

    init(progress: Progress) { self.progress = progress }

    func update(_ file: String, bytes count: Int64) {
        lock.withLock {
            bytes[file] = count
            let total = bytes.values.reduce(0, +)
            if total > progress.totalUnitCount { progress.totalUnitCount = total }
            if total > progress.completedUnitCount { progress.completedUnitCount = total }
        }
    }

    func finish() {
        lock.withLock {
            let total = bytes.values.reduce(0, +)
            progress.totalUnitCount = max(total, 1)
            progress.completedUnitCount = progress.totalUnitCount
        }
    }
}
