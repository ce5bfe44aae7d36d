import Foundation

/// The models the modules need, as Apple's `AssetInventory` manages its assets: their status, the locales reserved
/// for this app, and installation requests. Here the assets are Whisper models from Hugging Face, in the cache of
/// `ModelManager.shared` (`$AURALKIT_MODELS_DIR`, else `$XDG_CACHE_HOME/auralkit/models`), shared by every app of
/// the user; Silero VAD (the detector's model) is installed with them by `scripts/setup`.
public enum AssetInventory {
    /// How ready a module's assets are; ordered from `unsupported` to `installed`.
    public enum Status: Comparable, Hashable, Sendable {
        /// No model supports the module's configuration.
        case unsupported
        /// A model supports it, but must be downloaded.
        case supported
        /// The model is being downloaded.
        case downloading
        /// The model is installed: the module is ready.
        case installed
    }

    /// The most locales this app may reserve at once.
    public static var maximumReservedLocales: Int { ModelManager.shared.maxReservedLocales }

    /// The locales this app has reserved (their bare languages: `en` for `en_US`).
    public static var reservedLocales: [Locale] {
        get async { await ModelManager.shared.reservedLocales }
    }

    /// Reserves `locale`; returns false when it was already reserved.
    /// - Throws: `SpeechModelError.unsupportedLocale`, or `.tooManyReservedLocales` past `maximumReservedLocales`.
    @discardableResult
    public static func reserve(locale: Locale) async throws -> Bool {
        try await ModelManager.shared.reserveForApp(locale: locale)
    }

    /// Releases the reservation of `reservedLocale`; returns false when it was not reserved.
    @discardableResult
    public static func release(reservedLocale: Locale) async -> Bool {
        await ModelManager.shared.releaseForApp(locale: reservedLocale)
    }

    /// The lowest status among `modules`' models (a detector's model counts as installed).
    public static func status(forModules modules: [any SpeechModule]) async -> Status {
        var lowest = Status.installed
        for case let transcriber as any TranscribingModule in modules {
            lowest = min(lowest, await status(of: transcriber.settings))
        }
        return lowest
    }

    /// A request that installs what `modules` need, or nil when all is installed. Reserves the transcribers'
    /// locales.
    /// - Throws: `SFSpeechError(.cannotAllocateUnsupportedLocale)` when no model supports a module's locale;
    ///   `SpeechModelError.tooManyReservedLocales` past `maximumReservedLocales`.
    public static func assetInstallationRequest(supporting modules: [any SpeechModule]) async throws -> AssetInstallationRequest? {
        var requests: [ModelInstallationRequest] = []
        for case let transcriber as any TranscribingModule in modules {
            let settings = transcriber.settings
            let manager = settings.engine.modelManager
            guard await status(of: settings) != .unsupported else {
                throw SFSpeechError(.cannotAllocateUnsupportedLocale, locale: settings.locale)
            }
            guard settings.engine.modelName == nil else { continue }
            try await manager.reserveForApp(locale: settings.locale)
            if let request = try await manager.installationRequest(for: try await ModelAssets.modelName(for: settings)) {
                requests.append(request)
            }
        }
        return requests.isEmpty ? nil : AssetInstallationRequest(requests)
    }

    private static func status(of settings: TranscriberSettings) async -> Status {
        guard let name = try? await ModelAssets.modelName(for: settings) else { return .unsupported }
        if await ModelAssets.isInstalled(settings) { return .installed }
        return await settings.engine.modelManager.downloadProgress(for: name) != nil ? .downloading : .supported
    }
}

/// Downloads and installs the models some modules need, as Apple's `AssetInstallationRequest`; obtained from
/// `AssetInventory.assetInstallationRequest(supporting:)`. Requests for the same model share one download.
public final class AssetInstallationRequest: NSObject, ProgressReporting, @unchecked Sendable {
    private let requests: [ModelInstallationRequest]
    private let overall: SendableProgress

    init(_ requests: [ModelInstallationRequest]) {
        self.requests = requests
        let progress = Progress(totalUnitCount: Int64(requests.count) * 100)
        for request in requests { progress.addChild(request.progress, withPendingUnitCount: 100) }
        overall = SendableProgress(progress)
        super.init()
    }

    /// The installation's progress, from 0 to 1 over every model.
    public var progress: Progress { overall.progress }

    /// Downloads and installs the models not already installed; returns once they are, or throws why not
    /// (`SpeechModelError`: no connection, a full disk, a file that fails its checksum).
    public func downloadAndInstall() async throws {
        for request in requests { try await request.downloadAndInstall() }
    }
}

/// A `Progress`, which is thread-safe, held by a `Sendable` type.
struct SendableProgress: @unchecked Sendable {
    let progress: Progress
    init(_ progress: Progress) { self.progress = progress }
}

/// The Speech framework's model management, as Apple's `SpeechModels`.
public enum SpeechModels {
    /// Unloads every model kept loaded for later analyzers (`.lingering` and `.processLifetime` retention); models in
    /// use stay until their analysis ends.
    public static func endRetention() async {
        await ModelManager.shared.endRetention()
    }
}
