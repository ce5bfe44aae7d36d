import AVFoundation
import Foundation
@testable import Speech
import Synchronization
import TestSupport
import Testing

/// The other modules and the asset inventory, on the real model.
@Suite("Speech modules and assets", .serialized, .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct SpeechModulesTests {
    @Test("DictationTranscriber transcribes a file as SpeechTranscriber does, in its own result type")
    func dictation() async throws {
        let dictation = DictationTranscriber(locale: Locale(identifier: "en-US"), preset: .timeIndexedLongDictation)
        let texts = Task {
            var text = ""
            for try await result in dictation.results {
                #expect(result.isFinal)
                #expect(result.text.runs.first?.audioTimeRange != nil)
                text += String(result.text.characters)
            }
            return text
        }
        _ = try await SpeechAnalyzer(
            inputAudioFile: AVAudioFile(forReading: Fixtures.audio("beckett.wav")), modules: [dictation], finishAfterFile: true)
        let heard = try await texts.value
        let reference = try await SeedLikeReference.text("beckett.wav")
        #expect(heard == reference)
        #expect(dictation.selectedLocales == [Locale(identifier: "en-US")])
    }

    @Test("AssetInventory reserves and releases the app's locales, and reports an installed model")
    func assetInventory() async throws {
        #expect(AssetInventory.maximumReservedLocales >= 1)
        let english = Locale(identifier: "en-US")
        _ = await AssetInventory.release(reservedLocale: english)
        #expect(try await AssetInventory.reserve(locale: english))
        #expect(try await !AssetInventory.reserve(locale: Locale(identifier: "en-GB")))
        #expect(await AssetInventory.reservedLocales.contains(Locale(identifier: "en")))
        #expect(await AssetInventory.release(reservedLocale: english))
        #expect(await !AssetInventory.release(reservedLocale: english))
        let transcriber = SpeechTranscriber(locale: english, preset: .transcription)
        #expect(await AssetInventory.status(forModules: [transcriber, SpeechDetector()]) == .installed)
        #expect(await SpeechTranscriber.installedLocales.contains(Locale(identifier: "en")))
        #expect(await SpeechTranscriber.supportedLocales.contains(Locale(identifier: "de")))
        await #expect(throws: SFSpeechError.self) {
            _ = try await AssetInventory.assetInstallationRequest(supporting: [SpeechTranscriber(locale: Locale(identifier: "tlh"), preset: .transcription)])
        }
    }

    @Test("the volatile range follows the input taken and the results made final")
    func volatileRange() async throws {
        let transcriber = SpeechAnalyzerTests.transcriber()
        let changes = Mutex<[(CMTimeRange, Bool, Bool)]>([])
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        await analyzer.setVolatileRangeChangedHandler { range, changedStart, changedEnd in
            changes.withLock { $0.append((range, changedStart, changedEnd)) }
        }
        #expect(await analyzer.volatileRange == nil)
        let results = SpeechAnalyzerTests.collect(transcriber)
        let (inputs, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        for buffer in try SpeechAnalyzerTests.buffers(try Fixtures.samples("beckett.wav")) { builder.yield(AnalyzerInput(buffer: buffer)) }
        builder.finish()
        let end = try #require(try await analyzer.analyzeSequence(inputs))
        try await analyzer.finalize(through: nil)
        let range = try #require(await analyzer.volatileRange)
        #expect(range.end == end)
        try await analyzer.finalizeAndFinish(through: end)
        #expect(await analyzer.volatileRange == nil)
        _ = await results.value
        let recorded = changes.withLock { $0 }
        #expect(recorded.contains { $0.2 })
        #expect(recorded.contains { $0.1 && $0.0.start > .zero })
    }
}
