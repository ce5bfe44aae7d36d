@testable import AuralKit
@testable import Speech
import AuralVAD
import AuralWhisper
import Foundation
import TestSupport
import Testing

/// Voice activation in a live session: Silero VAD on real recordings with silence between them, the real tiny.en and
/// base models, audio from a `BufferSource` (so session time is sample time and the test does not wait on a clock).
@MainActor
@Suite("Voice activation", .serialized, .requiresFixtures(audio: ["beckett.wav", "two_cities.wav"], models: ["tiny.en", "base"]))
struct VoiceActivationTests {
    /// 3 s of silence, Beckett (10 s), 4 s of silence, the first 12 s of A Tale of Two Cities, 3 s of silence.
    static func speechWithPauses() throws -> (samples: [Float], secondPieceStart: Double) {
        let first = try Fixtures.samples("beckett.wav")
        let second = Array(try Fixtures.samples("two_cities.wav").prefix(16_000 * 12))
        let samples = Noise.silence(seconds: 3) + first + Noise.silence(seconds: 4) + second + Noise.silence(seconds: 3)
        return (samples, 3 + Double(first.count) / 16_000 + 4)
    }

    /// Runs a session with voice activation over `samples`; returns its finals, volatiles, error and detector results.
    static func transcribe(
        _ samples: [Float], model: String = "tiny.en", level: SpeechDetector.SensitivityLevel = .medium
    ) async throws -> (finals: [SpeechTranscriber.Result], volatiles: [SpeechTranscriber.Result], detections: [SpeechDetector.Result]) {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: model)
        session.configureVoiceActivation(detectionOptions: .init(sensitivityLevel: level), reportResults: true)
        #expect(session.isVoiceActivationEnabled)
        let detectorStream = try #require(session.speechDetectorResultsStream)
        let detections = Task {
            var all: [SpeechDetector.Result] = []
            for await detection in detectorStream { all.append(detection) }
            return all
        }
        let (finals, volatiles, error) = await SpeechSessionTests.collect(session.startTranscribing(from: BufferSource(samples: samples)))
        #expect(error == nil, "\(String(describing: error))")
        session.disableVoiceActivation()
        #expect(session.speechDetectorResultsStream == nil)
        return (finals, volatiles, await detections.value)
    }

    @Test("the detector reports speech where silero-vad's get_speech_timestamps finds it, within 100 ms")
    func detectorBoundaries() async throws {
        let (samples, _) = try Self.speechWithPauses()
        let (_, _, detections) = try await Self.transcribe(samples)
        let options = SpeechDetector.DetectionOptions(sensitivityLevel: .medium)
        let vad = try SileroVAD(contentsOf: ModelManager.shared.voiceActivityModelURL)
        let reference = SpeechSegments.detect(
            probabilities: vad.probabilities(for: samples), sampleCount: samples.count, options: options.segmentOptions)
        let speech = detections.filter { $0.speechDetected && $0.resultsFinalizationTime == $0.range.end }
        #expect(speech.count == reference.count, "\(speech.map(\.range)) vs \(reference)")
        #expect(reference.count >= 2)
        for (ours, theirs) in zip(speech, reference) {
            #expect(abs(ours.range.start.seconds - Double(theirs.lowerBound) / 16_000) <= 0.1, "\(ours.range) vs \(theirs)")
            #expect(abs(ours.range.end.seconds - Double(theirs.upperBound) / 16_000) <= 0.1, "\(ours.range) vs \(theirs)")
        }
        // Silence and speech alternate and cover the audio from its start, in order.
        let finished = detections.filter { $0.resultsFinalizationTime == $0.range.end }
        #expect(finished.first?.range.start.seconds == 0)
        for (a, b) in zip(finished, finished.dropFirst()) {
            #expect(a.range.end == b.range.start)
            #expect(a.speechDetected != b.speechDetected)
        }
    }

    @Test("with voice activation the speech is transcribed, at its real times, and each pause makes it final")
    func transcribesSpeechBetweenPauses() async throws {
        let (samples, secondStart) = try Self.speechWithPauses()
        let (finals, volatiles, _) = try await Self.transcribe(samples)
        let text = finals.map { String($0.text.characters) }.joined()
        let expected = try await offPool { try SpeechSessionTests.fileText("beckett.wav") }
        let words = WordErrorRate.words(text)
        let firstPiece = WordErrorRate.words(expected)
        #expect(WordErrorRate.percent(reference: expected, hypothesis: words.prefix(firstPiece.count).joined(separator: " ")) <= 15, "\(text)")
        #expect(words.dropFirst(firstPiece.count).joined(separator: " ").contains("it was the best of times"), "\(text)")
        // Session time is the original audio's time: the first word comes after the 3 s of silence, and the second
        // recording's words after its start.
        let runs = finals.flatMap { result in result.text.runs.compactMap { $0.audioTimeRange } }
        let first = try #require(runs.first)
        #expect(first.start.seconds >= 2.6 && first.start.seconds <= 4.5, "\(first.start.seconds)")
        let late = runs.filter { $0.start.seconds >= secondStart - 0.5 }
        #expect(!late.isEmpty)
        // No word in the 4 s of silence between the recordings.
        #expect(!runs.contains { $0.start.seconds > secondStart - 3.5 && $0.start.seconds < secondStart - 0.5 }, "\(runs)")
        // The end of the first recording is a finalize point: its words are final before the second recording starts.
        let beforeGap = finals.filter { $0.range.start.seconds < secondStart - 1 }
        #expect(!beforeGap.isEmpty)
        // Nothing is shown for the silent stretches: every result lies around speech.
        for result in finals + volatiles where result.range.duration.seconds > 0 {
            #expect(result.range.start.seconds >= 2.5, "\(result.range)")
        }
    }

    @Test("a one-word answer between two questions is heard: Endgame's opening, with the detector, reads as without it",
          .requiresFixtures(audio: ["endgame_nagg_nell.wav"]))
    func shortAnswerIsHeard() async throws {
        // "Do you hear me? Yes. Do you hear me? Yes." (the first 4.6 s): the first "Yes." is 0.22 s of speech between
        // two 0.6 s pauses, which a 250 ms minimum speech dropped.
        let opening = Array(try Fixtures.samples("endgame_nagg_nell.wav").prefix(16_000 * 46 / 10))
        let (finals, _, _) = try await Self.transcribe(opening + Noise.silence(seconds: 2))
        let text = finals.map { String($0.text.characters) }.joined()
        #expect(WordErrorRate.words(text) == ["do", "you", "hear", "me", "yes", "do", "you", "hear", "me", "yes"], "\(text)")
    }

    @Test("ten minutes of silence, room noise and broadband noise give no text", arguments: ["tiny.en", "base"])
    func noTextFromNoise(model: String) async throws {
        let (finals, volatiles, detections) = try await Self.transcribe(Noise.tenMinutes(), model: model)
        let words = WordErrorRate.words((finals + volatiles).map { String($0.text.characters) }.joined(separator: " "))
        #expect(words.isEmpty, "\(words)")
        #expect(detections.allSatisfy { !$0.speechDetected }, "\(detections.filter(\.speechDetected).map(\.range))")
    }

    @Test("isSpeechDetected is true without voice activation; configuring and disabling set the stream")
    func configuration() {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        #expect(session.isSpeechDetected)
        #expect(!session.isVoiceActivationEnabled)
        session.configureVoiceActivation()
        #expect(session.isVoiceActivationEnabled)
        #expect(session.speechDetectorResultsStream == nil)
        session.configureVoiceActivation(detectionOptions: .init(sensitivityLevel: .high), reportResults: true)
        #expect(session.speechDetectorResultsStream != nil)
        session.disableVoiceActivation()
        #expect(!session.isVoiceActivationEnabled)
        #expect(session.speechDetectorResultsStream == nil)
        #expect(session.isSpeechDetected)
    }
}
