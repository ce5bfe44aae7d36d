import AVFoundation
import Foundation
import Speech
import TestSupport
import Testing

/// The ASR primer's view model (../shared/seeds/004_…): its `apply` as printed.
final class PrimerTranscript {
    var finalizedText = ""
    var volatileText = ""

    func take(_ result: SpeechTranscriber.Result) {
        apply(text: String(result.text.characters), isFinal: result.isFinal)
    }

    private func apply(text: String, isFinal: Bool) {
        if isFinal {
            finalizedText += text     // locked in, won't change
            volatileText = ""
        } else {
            volatileText = text       // replaced wholesale next update
        }
    }
}

/// A recording read with `AVAudioFile` and converted with `AVAudioConverter` to the analyzer's best format, as an
/// app feeds recorded audio: the buffers of `AnalyzerInput` for an input sequence.
enum RecordedInput {
    static func buffers(_ url: URL, to format: AVAudioFormat) throws -> [AVAudioPCMBuffer] {
        let file = try AVAudioFile(forReading: url)
        let converter = try #require(AVAudioConverter(from: file.processingFormat, to: format))
        var converted: [AVAudioPCMBuffer] = []
        var ended = false
        while !ended {
            let input = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096))
            try file.read(into: input)
            ended = input.frameLength == 0
            let output = try #require(AVAudioPCMBuffer(
                pcmFormat: format, frameCapacity: AVAudioFrameCount(Double(4096) * format.sampleRate / file.processingFormat.sampleRate) + 64))
            var handed = false
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, status in
                if ended {
                    status.pointee = .endOfStream
                    return nil
                }
                if handed {
                    status.pointee = .noDataNow
                    return nil
                }
                handed = true
                status.pointee = .haveData
                return input
            }
            #expect(status != .error, "\(String(describing: error))")
            if output.frameLength > 0 { converted.append(output) }
        }
        return converted
    }
}

@Suite("The seeds' analyzer lifecycle on recorded audio", .serialized, .requiresFixtures(audio: ["two_cities.wav"], models: ["tiny.en"]))
struct AnalyzerLifecycleSeedTests {
    @Test("the ASR primer's lifecycle: finals add up to the recording, volatile text is replaced, the stream ends")
    func primerLifecycle() async throws {
        let resolved = try #require(await SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en_US")))
        #expect(try await AssetInventory.assetInstallationRequest(supporting: [SpeechTranscriber(locale: resolved, preset: .transcription)]) == nil)
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)

        let transcriber = SpeechTranscriber(
            locale: resolved,
            transcriptionOptions: [],
            reportingOptions: [.volatileResults],
            attributeOptions: []
        )

        let analyzer = SpeechAnalyzer(modules: [transcriber])
        try await analyzer.start(inputSequence: stream)

        let format = try #require(await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]))
        let feeder = Task {
            for buffer in try RecordedInput.buffers(Fixtures.audio("two_cities.wav"), to: format) {
                builder.yield(AnalyzerInput(buffer: buffer))
            }
            builder.finish()
            try await analyzer.finalizeAndFinishThroughEndOfInput()
        }
        let view = PrimerTranscript()
        var volatileCount = 0
        for try await result in transcriber.results {
            if !result.isFinal { volatileCount += 1 }
            view.take(result)
        }
        try await feeder.value
        #expect(volatileCount > 0)
        #expect(view.volatileText.isEmpty)
        let file = try await SeedTranscripts.fileText("two_cities.wav")
        let reference = ReferenceTranscripts.twoCities
        // Buffers fed faster than real time go through the live policy at the pace of the analysis: their text stays
        // within 2 points of the offline engine's (two words of the 119).
        let bufferedWER = WordErrorRate.percent(reference: reference, hypothesis: view.finalizedText)
        let fileWER = WordErrorRate.percent(reference: reference, hypothesis: file)
        #expect(bufferedWER <= fileWER + 2, "buffers \(bufferedWER) %: \(view.finalizedText)\nfile \(fileWER) %: \(file)")
    }

    @Test("Apple's SpeechAnalyzer example: analyzeSequence returns the last sample time, finalizeAndFinish(through:) ends the results")
    func appleExample() async throws {
        // Step 1: Modules
        guard let locale = await SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-US")) else {
            Issue.record("en-US unsupported")
            return
        }
        let transcriber = SpeechTranscriber(locale: locale, preset: .offlineTranscription)

        // Step 2: Assets
        if let installationRequest = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
            try await installationRequest.downloadAndInstall()
        }

        // Step 3: Input sequence
        let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)

        // Step 4: Analyzer
        let audioFormat = try #require(await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]))
        let analyzer = SpeechAnalyzer(modules: [transcriber])

        // Step 5: Supply audio
        let buffers = try RecordedInput.buffers(Fixtures.audio("two_cities.wav"), to: audioFormat)
        Task {
            for pcmBuffer in buffers {
                let input = AnalyzerInput(buffer: pcmBuffer)
                inputBuilder.yield(input)
            }
            inputBuilder.finish()
        }

        // Step 7: Act on results
        let printed = Task {
            var lines: [String] = []
            for try await result in transcriber.results {
                let bestTranscription = result.text // an AttributedString
                let plainTextBestTranscription = String(bestTranscription.characters) // a String
                lines.append(plainTextBestTranscription)
            }
            return lines
        }

        // Step 6: Perform analysis
        let lastSampleTime = try await analyzer.analyzeSequence(inputSequence)

        // Step 8: Finish analysis
        if let lastSampleTime {
            try await analyzer.finalizeAndFinish(through: lastSampleTime)
        } else {
            await analyzer.cancelAndFinishNow()
        }
        let lines = try await printed.value
        let frames = buffers.reduce(0) { $0 + Int($1.frameLength) }
        // The last sample time is the end of the audio given, to the sample.
        #expect(abs((lastSampleTime?.seconds ?? 0) - Double(frames) / audioFormat.sampleRate) < 0.001)
        let reference = ReferenceTranscripts.twoCities
        // Final results only (the preset has no volatile results); within 2 points of the offline engine, as above.
        let fileWER = WordErrorRate.percent(reference: reference, hypothesis: try await SeedTranscripts.fileText("two_cities.wav"))
        #expect(WordErrorRate.percent(reference: reference, hypothesis: lines.joined()) <= fileWER + 2, "\(lines)")
    }
}
