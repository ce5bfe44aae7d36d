import AuralKit
import Foundation
import TestSupport
import Testing

@Suite("ModelManager reservations and retention", .requiresFixtures(models: ["tiny.en"]))
struct ModelReservationTests {
    /// The setup's cache, read only: these tests load models but never install or remove.
    static func setupManager(maxReservedLocales: Int = 4) -> ModelManager {
        ModelManager(cacheDirectory: Fixtures.modelsDirectory, endpoint: URL(string: "http://127.0.0.1:9")!, maxReservedLocales: maxReservedLocales)
    }

    @Test("reserves up to maxReservedLocales distinct locales, and releases only its own reservation")
    func reservations() async throws {
        let manager = Self.setupManager(maxReservedLocales: 2)
        let english = try await manager.reserve(locale: Locale(identifier: "en_GB"))
        let american = try await manager.reserve(locale: Locale(identifier: "en_US"))
        #expect(english != american)
        #expect(english.locale == Locale(identifier: "en"))
        let german = try await manager.reserve(locale: Locale(identifier: "de_DE"))
        #expect(german.modelName == "base")
        #expect(await manager.reservedLocales == [Locale(identifier: "en"), Locale(identifier: "de")])
        await #expect(throws: SpeechModelError.tooManyReservedLocales(maximum: 2, reserved: [Locale(identifier: "en"), Locale(identifier: "de")])) {
            try await manager.reserve(locale: Locale(identifier: "fr_FR"))
        }
        await manager.release(english)
        #expect(await manager.reservedLocales.count == 2, "the other English session still holds en")
        await manager.release(english)
        await manager.release(american)
        #expect(await manager.reservedLocales == [Locale(identifier: "de")])
        _ = try await manager.reserve(locale: Locale(identifier: "fr_FR"))
        await #expect(throws: SpeechModelError.unsupportedLocale(Locale(identifier: "tlh"))) {
            try await manager.reserve(locale: Locale(identifier: "tlh"))
        }
    }

    @Test("sessions share one loaded model; whileInUse unloads it when the last lets go")
    func whileInUse() async throws {
        let manager = Self.setupManager()
        let first = try await manager.acquireModel(named: "tiny.en")
        let second = try await manager.acquireModel(named: "tiny.en")
        #expect(first === second)
        await manager.relinquishModel(named: "tiny.en")
        #expect(await manager.loadedModelNames == ["tiny.en"])
        await manager.relinquishModel(named: "tiny.en")
        #expect(await manager.loadedModelNames.isEmpty)
    }

    @Test("lingering keeps the model for its duration; processLifetime keeps it")
    func lingering() async throws {
        let manager = Self.setupManager()
        let model = try await manager.acquireModel(named: "tiny.en", retention: .lingering(.milliseconds(300)))
        await manager.relinquishModel(named: "tiny.en")
        #expect(await manager.loadedModelNames == ["tiny.en"])
        let again = try await manager.acquireModel(named: "tiny.en", retention: .lingering(.milliseconds(300)))
        #expect(again === model, "a session started while it lingers loads nothing")
        await manager.relinquishModel(named: "tiny.en")
        // The unload runs on a timer task; the engine's tests beside this one can delay it well past 300 ms.
        _ = await Poll.until(timeout: 60, every: .milliseconds(50)) { await manager.loadedModelNames.isEmpty }
        #expect(await manager.loadedModelNames.isEmpty, "the model is unloaded once it has lingered")

        _ = try await manager.acquireModel(named: "tiny.en", retention: .processLifetime)
        await manager.relinquishModel(named: "tiny.en")
        try await Task.sleep(for: .milliseconds(100))
        #expect(await manager.loadedModelNames == ["tiny.en"])
    }

    @Test("a model that is not installed cannot be acquired")
    func notInstalled() async {
        let manager = ModelManager(cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())"))
        await #expect(throws: SpeechModelError.self) { try await manager.acquireModel(named: "tiny.en") }
    }

    @Test("deviceCapabilities reports the locales, the machine and a recommended model")
    func capabilities() async throws {
        let capabilities = await Self.setupManager().deviceCapabilities()
        #expect(capabilities.supportsSpeechTranscriber, "the engine runs on every CPU, at the baseline too")
        #expect(capabilities.supportsDictationTranscriber == capabilities.supportsSpeechTranscriber)
        #expect(capabilities.supportedLocales.count == 99)
        #expect(capabilities.supportedDictationLocales == [Locale(identifier: "en")])
        #expect(Set(capabilities.installedLocales).isSuperset(of: [Locale(identifier: "en"), Locale(identifier: "de")]))
        #expect(capabilities.maxReservedLocales == 4)
        #expect(capabilities.processorCount == ProcessInfo.processInfo.activeProcessorCount)
        #expect(capabilities.physicalMemory > 0)
        #expect(ModelCatalog.standard.model(named: capabilities.recommendedModel) != nil)
        #expect(ModelCatalog.standard.model(named: capabilities.recommendedEnglishModel)?.isEnglishOnly == true)

        let empty = await ModelManager(cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID())"))
            .deviceCapabilities()
        #expect(empty.installedLocales.isEmpty)
    }
}

@Suite("SpeechModelError")
struct SpeechModelErrorTests {
    static let cases: [SpeechModelError] = [
        .modelNotInstalled(name: "tiny.en", searched: "/x/tiny.en"),
        .unknownModel(name: "huge", available: ["tiny"]),
        .unsupportedLocale(Locale(identifier: "tlh")),
        .modelDownloadNoInternet(endpoint: "http://127.0.0.1:9", reason: "connection refused"),
        .modelDownloadFailed(model: "tiny", cause: .httpStatus(code: 404, url: "http://x")),
        .modelDownloadFailed(model: "tiny", cause: .httpStatus(code: 401, url: "http://x")),
        .modelDownloadFailed(model: "tiny", cause: .httpStatus(code: 503, url: "http://x")),
        .modelDownloadFailed(model: "tiny", cause: .sizeMismatch(file: "model.bin", expected: 2, actual: 1)),
        .modelDownloadFailed(model: "tiny", cause: .checksumMismatch(file: "model.bin", expected: "a", actual: "b")),
        .modelDownloadFailed(model: "tiny", cause: .insufficientDiskSpace(required: 2, available: 1, path: "/x")),
        .modelDownloadFailed(model: "tiny", cause: .diskFull(path: "/x")),
        .modelDownloadFailed(model: "tiny", cause: .fileSystem(path: "/x", reason: "read-only")),
        .modelDownloadFailed(model: "tiny", cause: .connectionLost(url: "http://x", reason: "reset")),
        .tooManyReservedLocales(maximum: 4, reserved: [Locale(identifier: "en")]),
        .modelReserved(name: "tiny"),
        .modelIncomplete(name: "tiny", problems: ["model.bin is missing"]),
    ]

    @Test("every case has a description, a reason and a recovery suggestion", arguments: cases)
    func localized(_ error: SpeechModelError) {
        #expect(error.errorDescription?.isEmpty == false)
        #expect(error.failureReason?.isEmpty == false)
        #expect(error.recoverySuggestion?.isEmpty == false)
    }

    @Test("suggestions name ModelManager's calls, for apps")
    func suggestionsInAPITerms() {
        #expect(SpeechModelError.modelNotInstalled(name: "tiny.en", searched: "/x").recoverySuggestion?.contains("install(_:)") == true)
        #expect(SpeechModelError.modelIncomplete(name: "tiny.en", problems: []).recoverySuggestion?.contains("remove(_:)") == true)
        #expect(SpeechModelError.unknownModel(name: "huge", available: []).recoverySuggestion?.contains("catalog") == true)
    }
}

@Suite("ModelManager documentation example")
struct ModelManagerExampleTests {
    @Test("the example at the top of ModelManager's documentation runs as written (tiny.en installed by the setup)")
    func example() async throws {
        let manager = ModelManager(cacheDirectory: Fixtures.modelsDirectory, endpoint: URL(string: "http://127.0.0.1:9")!)
        // --- as in the doc comment ---
        let model = try await manager.model(for: Locale(identifier: "en_GB"))  // tiny.en
        if let request = try await manager.installationRequest(for: model.name) {
            print(request.progress.fractionCompleted)  // observe while it runs
            try await request.downloadAndInstall()
        }
        let whisper = try await manager.acquireModel(named: model.name, retention: .lingering(.seconds(60)))
        // ---
        #expect(model.name == "tiny.en")
        #expect(whisper.languages == ["en"])
        await manager.relinquishModel(named: model.name)
    }
}
