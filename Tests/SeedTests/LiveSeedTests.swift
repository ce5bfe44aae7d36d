import AVFoundation
import Common
import Foundation
import Speech
import TestSupport
import Testing

/// The seeds' live code on the private sound server's virtual microphone (`scripts/with-pulse`), a real recording
/// played into it in real time. Run with the other live-microphone suites (`--filter LiveMicrophone`).
@Suite(
    "Live microphone: the seeds' code", .serialized, .requiresVirtualMicrophone, .exclusiveVirtualMicrophone,
    .requiresFixtures(audio: ["beckett.wav", "two_cities.wav"], models: ["tiny.en"]))
struct LiveMicrophoneSeeds {
    @MainActor
    @Test("Firefox's SpeechAnalyzerEngine: the spoken words arrive as volatile results, then one final phrase ends the stream")
    func firefoxEngine() async throws {
        let engine = SpeechAnalyzerEngine(
            locale: Locale(identifier: "en-US"), audioManager: AudioManager(), authorizer: Authorizer())
        try await engine.prepare()
        let (stream, continuation) = AsyncThrowingStream<SpeechResult, any Error>.makeStream()
        try await engine.start(continuation: continuation)
        let player = try VirtualMicrophone.play(Fixtures.audio("beckett.wav"), delay: 0.5)
        defer { player.terminate() }
        // The engine ends its stream at the first final; a phrase is final at its sentence end or pause. Should
        // none come, the stream ends after 30 s with an error.
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            continuation.finish(throwing: CancellationError())
        }
        var results: [SpeechResult] = []
        var failure: (any Error)?
        do {
            for try await result in stream { results.append(result) }
        } catch {
            failure = error
        }
        deadline.cancel()
        try await engine.stop()
        #expect(failure == nil, "no final result within 30 s: \(results)")
        let finals = results.filter(\.isFinal)
        #expect(finals.count == 1)
        #expect(results.last?.isFinal == true)
        #expect(results.count > 1, "volatile results before the final: \(results)")
        let heard = finals.first?.text ?? ""
        let heardWords = WordErrorRate.words(heard)
        let file = WordErrorRate.words(try await SeedTranscripts.fileText("beckett.wav"))
        let reference = file.prefix(heardWords.count).joined(separator: " ")
        // The final is a phrase, the recording's opening words as the file transcription reads them (one word in four
        // may differ: live decodes hear less context than the file's 30-s window), and not the whole recording: its
        // first sentence, "Ever tried." (or "Ever tried, ever failed." when the live decode puts a comma there).
        #expect(heardWords.count >= 2, "\(heard)")
        #expect(heardWords.count < file.count, "\(heard)")
        #expect(WordErrorRate.percent(reference: reference, hypothesis: heard) <= 25, "\(heard) vs \(reference)")
    }

    @Test("the guide's LiveTranscription: volatile text wells up, and the finals add up to the recording")
    func guideLiveTranscription() async throws {
        let live = LiveTranscription(locale: Locale(identifier: "en-US"))
        let consumer = Task { await live.consumeResults() }
        var volatileSeen = false
        try await live.start()
        let player = try VirtualMicrophone.play(Fixtures.audio("two_cities.wav"), delay: 0.5)
        while player.isRunning {
            try await Task.sleep(for: .milliseconds(100))
            if await MainActor.run(body: { !live.volatileText.isEmpty }) { volatileSeen = true }
        }
        try await Task.sleep(for: .seconds(1.5))
        await live.stop()
        await consumer.value
        let final = await MainActor.run { live.finalText }
        #expect(volatileSeen)
        let file = try await SeedTranscripts.fileText("two_cities.wav")
        let reference = ReferenceTranscripts.twoCities
        // The live text's word error rate stays within 3 points of the file's: in real time the microphone's
        // resampled audio and the live decodes' shorter context cost a word or two of the recording's 119.
        let liveWER = WordErrorRate.percent(reference: reference, hypothesis: final)
        let fileWER = WordErrorRate.percent(reference: reference, hypothesis: file)
        #expect(liveWER <= fileWER + 3, "live \(liveWER) %: \(final)\nfile \(fileWER) %")
        #expect(await MainActor.run { live.volatileText.isEmpty })
    }
}

extension LiveTranscription: @unchecked Sendable {}
