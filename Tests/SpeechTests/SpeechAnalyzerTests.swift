import AVFoundation
import AuralWhisper
import CoreMedia
import Foundation
@testable import Speech
import TestSupport
import Testing

/// `SpeechAnalyzer` with the real model on real recordings: files, buffers in other formats, gaps, detection, and
/// what goes wrong.
@Suite("SpeechAnalyzer", .serialized, .requiresFixtures(audio: ["beckett.wav", "two_cities.wav"], models: ["tiny.en"]))
struct SpeechAnalyzerTests {
    /// A transcriber of English on tiny.en.
    static func transcriber(_ preset: SpeechTranscriber.Preset = .timeIndexedProgressiveTranscription, manager: ModelManager = .shared) -> SpeechTranscriber {
        SpeechTranscriber(
            locale: Locale(identifier: "en-US"), transcriptionOptions: preset.transcriptionOptions,
            reportingOptions: preset.reportingOptions, attributeOptions: preset.attributeOptions,
            engine: TranscriberEngine(modelName: "tiny.en", modelManager: manager))
    }

    /// Every result of `transcriber` until its results end, and the error they ended with.
    static func collect(_ transcriber: SpeechTranscriber) -> Task<([SpeechTranscriber.Result], (any Error)?), Never> {
        Task {
            var results: [SpeechTranscriber.Result] = []
            do {
                for try await result in transcriber.results { results.append(result) }
            } catch {
                return (results, error)
            }
            return (results, nil)
        }
    }

    /// 16 kHz mono float32 buffers of `samples`, `size` frames each.
    static func buffers(_ samples: [Float], size: Int = 4_000) throws -> [AVAudioPCMBuffer] {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
        return try stride(from: 0, to: samples.count, by: size).map { start in
            let count = min(size, samples.count - start)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count)))
            for i in 0..<count { buffer.floatChannelData![0][i] = samples[start + i] }
            buffer.frameLength = AVAudioFrameCount(count)
            return buffer
        }
    }

    @Test("a file through SpeechAnalyzer(inputAudioFile:) gives the offline engine's text, final segment by segment")
    func fileIsOffline() async throws {
        let transcriber = Self.transcriber()
        let collected = Self.collect(transcriber)
        let file = try AVAudioFile(forReading: Fixtures.audio("two_cities.wav"))
        let seconds = Double(file.length) / file.fileFormat.sampleRate
        _ = try await SpeechAnalyzer(inputAudioFile: file, modules: [transcriber], finishAfterFile: true)
        let (results, error) = await collected.value
        #expect(error == nil)
        #expect(!results.isEmpty && results.allSatisfy(\.isFinal))
        let model = try await ModelManager.shared.acquireModel(named: "tiny.en", computeType: .auto)
        let offline = try await offPool {
            try Transcriber(model: model).transcribe(
                try Fixtures.samples("two_cities.wav"), options: DecodingOptions(language: "en", wordTimestamps: true)
            ).segments.map(\.text).joined()
        }
        await ModelManager.shared.relinquishModel(named: "tiny.en", computeType: .auto)
        // The same engine with the same options: the same text, to the character (leading space aside).
        let text = results.map { String($0.text.characters) }.joined()
        #expect(text == offline.drop(while: { $0 == " " }).description)
        // Ranges follow each other and end inside the recording.
        for (earlier, later) in zip(results, results.dropFirst()) { #expect(earlier.range.end <= later.range.start + CMTime(value: 1, timescale: 100)) }
        #expect(results.last!.range.end.seconds <= seconds + 0.5)
    }

    @Test("buffers in a 44.1 kHz stereo int16 format are converted; a start time after a gap moves the results by it")
    func convertedBuffersWithGap() async throws {
        let transcriber = Self.transcriber()
        let collected = Self.collect(transcriber)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let file = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
        let stereo = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let converter = try #require(AVAudioConverter(from: file.processingFormat, to: stereo))
        let whole = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
        try file.read(into: whole)
        let converted = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: AVAudioFrameCount(Double(file.length) * 44_100 / file.processingFormat.sampleRate) + 1024))
        var given = false
        var error: NSError?
        _ = converter.convert(to: converted, error: &error) { _, status in
            if given { status.pointee = .endOfStream; return nil }
            given = true
            status.pointee = .haveData
            return whole
        }
        #expect(converted.frameLength > 0)
        let (inputs, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        builder.yield(AnalyzerInput(buffer: converted, bufferStartTime: CMTime(value: 5 * 44_100, timescale: 44_100)))
        builder.finish()
        let end = try await analyzer.analyzeSequence(inputs)
        try await analyzer.finalizeAndFinish(through: try #require(end))
        let (results, failure) = await collected.value
        #expect(failure == nil)
        let finals = results.filter(\.isFinal)
        #expect(!finals.isEmpty)
        // The speech comes after the 5-s gap: without the gap its first word would start near 0. The alignment may put
        // the start of the first word into the silence before it, up to the last second of silence that a silent
        // buffer keeps. The input ends 5 s after the recording does.
        #expect(try #require(finals.first).range.start.seconds >= 4, "\(finals.map(\.range))")
        #expect(abs(try #require(end).seconds - (5 + Double(file.length) / file.fileFormat.sampleRate)) < 0.01)
        let reference = try await SeedLikeReference.text("beckett.wav")
        let heard = finals.map { String($0.text.characters) }.joined()
        // Live decoding of a 10-s recording: within 15 % of the file transcription (two words of its ~25).
        #expect(WordErrorRate.percent(reference: reference, hypothesis: heard) <= 15, "\(heard) vs \(reference)")
    }

    @Test("input that starts before the audio already taken fails the analysis with audioDisordered, and the results end with it")
    func disorderedInput() async throws {
        let transcriber = Self.transcriber()
        let collected = Self.collect(transcriber)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let samples = try Fixtures.samples("beckett.wav")
        let buffers = try Self.buffers(Array(samples.prefix(32_000)), size: 16_000)
        let (inputs, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        builder.yield(AnalyzerInput(buffer: buffers[0]))
        builder.yield(AnalyzerInput(buffer: buffers[1], bufferStartTime: CMTime(value: 8_000, timescale: 16_000)))
        builder.finish()
        await #expect(throws: SFSpeechError(.audioDisordered)) { _ = try await analyzer.analyzeSequence(inputs) }
        let (_, failure) = await collected.value
        #expect((failure as? SFSpeechError)?.code == .audioDisordered)
        await #expect(throws: SFSpeechError(.audioDisordered)) { try await analyzer.finalizeAndFinishThroughEndOfInput() }
    }

    @Test("an unsupported locale and a missing model are errors with recovery suggestions, not a hang")
    func missingAssets() async throws {
        let klingon = SpeechTranscriber(locale: Locale(identifier: "tlh"), preset: .transcription)
        #expect(await SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "tlh")) == nil)
        #expect(await AssetInventory.status(forModules: [klingon]) == .unsupported)
        let analyzer = SpeechAnalyzer(modules: [klingon])
        let error = await #expect(throws: SFSpeechError.self) { try await analyzer.prepareToAnalyze(in: nil) }
        #expect(error?.code == .cannotAllocateUnsupportedLocale)
        #expect(error?.recoverySuggestion?.contains("supportedLocales") == true)

        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("speech-empty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: empty) }
        let manager = ModelManager(cacheDirectory: empty)
        let uninstalled = SpeechTranscriber(
            locale: Locale(identifier: "en-US"), transcriptionOptions: [], reportingOptions: [], attributeOptions: [],
            engine: TranscriberEngine(modelManager: manager))
        #expect(await uninstalled.availableCompatibleAudioFormats.isEmpty)
        #expect(await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [uninstalled]) == nil)
        let collected = Task { () -> (any Error)? in
            do { for try await _ in uninstalled.results {} } catch { return error }
            return nil
        }
        let noModel = await #expect(throws: SFSpeechError.self) { try await SpeechAnalyzer(modules: [uninstalled]).prepareToAnalyze(in: nil) }
        #expect(noModel?.code == .noModel)
        #expect(noModel?.recoverySuggestion?.contains("assetInstallationRequest") == true)
        #expect((await collected.value as? SFSpeechError)?.code == .noModel)
    }

    @Test("a detector alone reports silence, then speech, over the input's timeline")
    func detectorAlone() async throws {
        let detector = SpeechDetector(detectionOptions: .init(sensitivityLevel: .medium), reportResults: true)
        let analyzer = SpeechAnalyzer(modules: [detector])
        let speech = try Fixtures.samples("beckett.wav")
        let samples = [Float](repeating: 0, count: 32_000) + speech
        let (inputs, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        for buffer in try Self.buffers(samples) { builder.yield(AnalyzerInput(buffer: buffer)) }
        builder.finish()
        let results = Task {
            var all: [SpeechDetector.Result] = []
            for try await result in detector.results { all.append(result) }
            return all
        }
        _ = try await analyzer.analyzeSequence(inputs)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let all = try await results.value
        let firstSpeech = try #require(all.first { $0.speechDetected })
        // Silero hears the speech start within the recording's first second after the 2 s of digital silence
        // (the padding puts the start up to 0.3 s before the first word).
        #expect(firstSpeech.range.start.seconds >= 1.5 && firstSpeech.range.start.seconds <= 3.2)
        #expect(all.contains { !$0.speechDetected && $0.range.start.seconds == 0 })
    }
}

/// The file transcription of a recording through the analyzer, for comparisons.
enum SeedLikeReference {
    static func text(_ recording: String) async throws -> String {
        let transcriber = SpeechAnalyzerTests.transcriber(.transcription)
        let collected = SpeechAnalyzerTests.collect(transcriber)
        _ = try await SpeechAnalyzer(
            inputAudioFile: try AVAudioFile(forReading: Fixtures.audio(recording)), modules: [transcriber], finishAfterFile: true)
        return await collected.value.0.map { String($0.text.characters) }.joined()
    }
}
