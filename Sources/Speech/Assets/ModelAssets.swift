import AuralWhisper
import Foundation

/// The transcriber modules' models: which one a module needs, whether it is installed, and loading it for an
/// analysis (shared through the module's `ModelManager`, with the locale reserved while it is used).
enum ModelAssets {
    /// The languages some model of `manager`'s catalog transcribes, as bare-language locales.
    static func supportedLocales(_ manager: ModelManager) -> [Locale] {
        manager.catalog.languages.sorted().map { Locale(identifier: $0) }
    }

    /// The languages an installed model of `manager` transcribes.
    static func installedLocales(_ manager: ModelManager) async -> [Locale] {
        let languages = await manager.installedModels().filter(\.isComplete).flatMap { $0.descriptor?.languages ?? [] }
        return Set(languages).sorted().map { Locale(identifier: $0) }
    }

    /// The model `settings` asks for: its own, or the manager's choice for the locale.
    /// - Throws: `SpeechModelError.unsupportedLocale` when no model transcribes the language.
    static func modelName(for settings: TranscriberSettings) async throws -> String {
        if let name = settings.engine.modelName { return name }
        return try await settings.engine.modelManager.model(for: settings.locale).name
    }

    /// Whether the model `settings` asks for is installed (a model folder given by path counts as installed).
    static func isInstalled(_ settings: TranscriberSettings) async -> Bool {
        guard let name = try? await modelName(for: settings) else { return false }
        if settings.engine.modelName != nil { return true }
        return await settings.engine.modelManager.isInstalled(name)
    }

    /// Reserves the locale and loads the model for an analysis, kept after it as `retention` says (the analyzer's
    /// options), else as the module's engine says.
    /// - Throws: `SFSpeechError` `.cannotAllocateUnsupportedLocale` when no model transcribes the locale, `.noModel`
    ///   when its model is not installed; the model's own load errors (`WhisperModelError`, `SpeechModelError`).
    static func load(_ settings: TranscriberSettings, retention: ModelRetention? = nil) async throws -> LoadedTranscriberModel {
        let manager = settings.engine.modelManager
        guard let language = ModelCatalog.whisperLanguage(for: settings.locale) else {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale, locale: settings.locale)
        }
        let name: String
        do {
            name = try await modelName(for: settings)
        } catch SpeechModelError.unsupportedLocale {
            throw SFSpeechError(.cannotAllocateUnsupportedLocale, locale: settings.locale)
        }
        if settings.engine.modelName == nil, await !manager.isInstalled(name) {
            throw SFSpeechError(.noModel, locale: settings.locale, model: name)
        }
        let reservation = settings.engine.modelName == nil ? try await manager.reserve(locale: settings.locale) : nil
        do {
            let model = try await manager.acquireModel(
                named: name, computeType: settings.engine.computeType, retention: retention ?? settings.engine.retention)
            if !model.languages.contains(language) {
                await manager.relinquishModel(named: name, computeType: model.computeType)
                throw SFSpeechError(.cannotAllocateUnsupportedLocale, locale: settings.locale, model: name)
            }
            return LoadedTranscriberModel(model: model, name: name, language: language, reservation: reservation, manager: manager)
        } catch {
            if let reservation { await manager.release(reservation) }
            throw error
        }
    }
}

/// A model loaded for one analysis, with what must be given back when it ends.
struct LoadedTranscriberModel: Sendable {
    let model: WhisperModel
    let name: String
    let language: String
    let reservation: ModelReservation?
    let manager: ModelManager

    /// Gives the model and the locale back to the manager.
    func release() async {
        await manager.relinquishModel(named: name, computeType: model.computeType)
        if let reservation { await manager.release(reservation) }
    }
}
