@testable import AuralAudio
@testable import AuralKit
@testable import Speech
import AuralWhisper
import Foundation
import TestSupport
import Testing

/// A session over real audio from a `BufferSource` (no sound server), with the real tiny.en model.
@MainActor
@Suite("SpeechSession", .serialized, .requiresFixtures(audio: ["beckett.wav", "two_cities.wav"], models: ["tiny.en"]))
struct SpeechSessionTests {
    /// tiny.en as sessions load it, once for the file transcriptions the tests compare with.
    nonisolated static let model = Result { try Fixtures.sessionModel("tiny.en") }

    nonisolated static func fileText(_ recording: String) throws -> String {
        try Transcriber(model: try model.get()).transcribe(try Fixtures.samples(recording), options: DecodingOptions(language: "en"))
            .segments.map(\.text).joined()
    }

    /// A recording's words with their times, from a file transcription with word timestamps.
    nonisolated static func fileWords(_ recording: String) throws -> [WordTiming] {
        var options = DecodingOptions(language: "en")
        options.wordTimestamps = true
        return try Transcriber(model: try model.get()).transcribe(try Fixtures.samples(recording), options: options)
            .segments.flatMap { $0.words ?? [] }
    }

    /// Collects a stream's results, and the error that ended it.
    static func collect(
        _ stream: AsyncThrowingStream<SpeechTranscriber.Result, Error>
    ) async -> (finals: [SpeechTranscriber.Result], volatiles: [SpeechTranscriber.Result], error: (any Error)?) {
        var finals: [SpeechTranscriber.Result] = []
        var volatiles: [SpeechTranscriber.Result] = []
        do {
            for try await result in stream {
                if result.isFinal { finals.append(result) } else { volatiles.append(result) }
            }
        } catch {
            return (finals, volatiles, error)
        }
        return (finals, volatiles, nil)
    }

    @Test("a source's speech arrives as volatile, then final results whose text holds the recording")
    func transcribesASource() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en-US"), model: "tiny.en")
        let source = BufferSource(samples: try Fixtures.samples("beckett.wav"), realTime: true)
        let (finals, volatiles, error) = await Self.collect(session.startTranscribing(from: source))
        #expect(error == nil)
        #expect(!volatiles.isEmpty)
        let text = finals.map { String($0.text.characters) }.joined()
        let reference = try await offPool { try Self.fileText("beckett.wav") }
        #expect(WordErrorRate.percent(reference: reference, hypothesis: text) <= 10, "\(text)\nvs\n\(reference)")
        // resultsFinalizationTime only moves forward, and every final's runs carry word times and confidences.
        for (a, b) in zip(finals, finals.dropFirst()) { #expect(b.resultsFinalizationTime >= a.resultsFinalizationTime) }
        for final in finals {
            for run in final.text.runs {
                let range = try #require(run.audioTimeRange)
                #expect(range.start.seconds >= 0 && range.end.seconds <= 11)
                let confidence = try #require(run.transcriptionConfidence)
                #expect(confidence > 0 && confidence <= 1)
            }
            #expect(!final.alternatives.isEmpty)
        }
        #expect(session.status == .idle)
    }

    @Test("stopping mid-sentence keeps the words spoken before the stop")
    func stopFlushes() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let samples = try Fixtures.samples("two_cities.wav")
        let source = BufferSource(samples: samples, realTime: true)
        let stream = session.startTranscribing(from: source)
        let collector = Task { await Self.collect(stream) }
        try await Task.sleep(for: .seconds(6))
        await session.stopTranscribing()
        let (finals, _, error) = await collector.value
        #expect(error == nil)
        let text = finals.map { String($0.text.characters) }.joined()
        // The first six seconds: "It was the best of times, it was the worst of times, it was the age of wisdom, …"
        let heard = WordErrorRate.words(text)
        #expect(heard.starts(with: ["it", "was", "the", "best", "of", "times"]), "\(text)")
        #expect(heard.contains("worst"), "\(text)")
        #expect(session.status == .idle)
    }

    @Test("a second start while one runs fails the new stream; the first goes on")
    func secondStart() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let source = BufferSource(samples: try Fixtures.samples("beckett.wav"), realTime: true)
        let first = session.startTranscribing(from: source)
        let collector = Task { await Self.collect(first) }
        let (_, _, error) = await Self.collect(session.startTranscribing(from: source))
        #expect(error as? SpeechSessionError == .recognitionStreamSetupFailed)
        await session.stopTranscribing()
        #expect(await collector.value.error == nil)
        // A session can start again after a stop.
        let again = await Self.collect(session.startTranscribing(from: BufferSource(samples: try Fixtures.samples("beckett.wav"))))
        #expect(again.error == nil)
        #expect(!again.finals.isEmpty)
    }

    @Test("status goes idle → preparing → transcribing → stopping → idle, and statusStream reports it")
    func statusSequence() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        var seen: [SpeechSession.Status] = []
        let statuses = session.statusStream
        let watcher = Task { @MainActor in
            for await status in statuses {
                seen.append(status)
                if seen.count >= 5 { break }
            }
            return seen
        }
        let stream = session.startTranscribing(from: BufferSource(samples: try Fixtures.samples("beckett.wav"), realTime: true))
        let collector = Task { await Self.collect(stream) }
        try await Task.sleep(for: .seconds(2))
        await session.stopTranscribing()
        _ = await collector.value
        let observed = await watcher.value
        #expect(observed == [.idle, .preparing, .transcribing, .stopping, .idle])
    }

    @Test("pause delivers what was said as final and hears nothing until resume; resume continues the stream")
    func pauseAndResume() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let recording = try Fixtures.samples("two_cities.wav")
        // A microphone: the recording goes on while the session is paused, and resume hears it from there.
        let source = BufferSource(samples: recording, realTime: true, continuesWhileStopped: true)
        let stream = session.startTranscribing(from: source)
        let finals = FinalLog()
        let collector = Task {
            for try await result in stream where result.isFinal { finals.append(String(result.text.characters)) }
        }
        try await Task.sleep(for: .seconds(4))
        await session.pauseTranscribing()
        #expect(session.status == .paused)
        // The flush of the paused audio is delivered before pauseTranscribing returns; give the consumer a moment to
        // read it, then nothing more may come while paused.
        try await Task.sleep(for: .seconds(0.5))
        let atPause = finals.count
        #expect(atPause > 0, "what was said before the pause is final")
        try await Task.sleep(for: .seconds(2.5))
        #expect(finals.count == atPause, "nothing is transcribed while paused")
        try await session.resumeTranscribing()
        #expect(session.status == .transcribing)
        try await Task.sleep(for: .seconds(4))
        await session.stopTranscribing()
        try await collector.value

        // Which words were heard follows from what the source played: the recording's words (timed by a file
        // transcription) well inside a played part must be final, and those well inside the pause must not.
        let played = source.playedRanges
        try #require(played.count == 2, "\(played)")
        let gap = played[0].upperBound...played[1].lowerBound
        #expect(gap.upperBound - gap.lowerBound > 2, "the pause skipped the audio spoken meanwhile: \(played)")
        let spoken = try Self.fileWords("two_cities.wav")
        let counts = Dictionary(spoken.map { (WordErrorRate.words($0.word).first ?? "", 1) }, uniquingKeysWith: +)
        func distinctive(in range: ClosedRange<Double>, margin: Double) -> [String] {
            spoken.filter { $0.start >= range.lowerBound + margin && $0.end <= range.upperBound - margin }
                .compactMap { WordErrorRate.words($0.word).first }
                .filter { $0.count >= 4 && counts[$0] == 1 }  // "wisdom", not "it was the"
        }
        let heard = Set(WordErrorRate.words(finals.all.joined()))
        let log = "finals \(finals.all), played \(played)"
        let expected = distinctive(in: played[0], margin: 0.5) + distinctive(in: played[1], margin: 0.7)
        let unheard = distinctive(in: gap, margin: 0.3)
        print("pause and resume: \(log); must hear \(expected), must not hear \(unheard)")
        #expect(!expected.isEmpty, "\(log)")
        for word in expected { #expect(heard.contains(word), "\(word) was played: \(log)") }
        for word in unheard { #expect(!heard.contains(word), "\(word) was said during the pause: \(log)") }
    }

    @Test("an unsupported locale ends the stream with unsupportedLocale")
    func unsupportedLocale() async throws {
        let session = SpeechSession(locale: Locale(identifier: "xx-YY"))
        let (_, _, error) = await Self.collect(session.startTranscribing(from: BufferSource(samples: [0, 0, 0])))
        #expect(error as? SpeechSessionError == .unsupportedLocale(Locale(identifier: "xx-YY")))
        #expect(session.status == .idle)
    }

    @Test("a missing model with no network ends the stream with modelDownloadNoInternet")
    func noNetwork() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-empty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        // Port 9 (discard) has no listener here: the connection is refused, as with no network.
        let manager = ModelManager(cacheDirectory: cache, endpoint: URL(string: "http://127.0.0.1:9")!, timeout: 5)
        let session = SpeechSession(locale: Locale(identifier: "en"), modelManager: manager)
        let (_, _, error) = await Self.collect(session.startTranscribing(from: BufferSource(samples: [0, 0, 0])))
        let sessionError = try #require(error as? SpeechSessionError)
        switch sessionError {
        case .modelDownloadNoInternet: break
        default: Issue.record("expected modelDownloadNoInternet, got \(sessionError)")
        }
        #expect(await session.modelDownloadProgress == nil)
    }

    @Test("no sound server: the microphone's stream ends with soundServerUnavailable and the session is idle again")
    func noSoundServer() async throws {
        // The real microphone source, pointed at a socket where nothing listens (libpulse refuses at once).
        let server = "unix:" + FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-no-server-\(getpid())").path
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let source = PulseMicrophoneSource(deviceName: nil, format: .whisper, server: server)
        let (finals, _, error) = await Self.collect(session.startTranscribing(from: source))
        #expect(finals.isEmpty)
        let sessionError = try #require(error as? SpeechSessionError)
        guard case .soundServerUnavailable(let reason) = sessionError else {
            Issue.record("expected soundServerUnavailable, got \(sessionError)")
            return
        }
        #expect(reason.contains(server), "\(reason)")
        #expect(session.status == .idle)
        // The session starts again once a source works.
        let samples = Array(try Fixtures.samples("beckett.wav").prefix(16_000 * 4))
        let (again, _, secondError) = await Self.collect(session.startTranscribing(from: BufferSource(samples: samples)))
        #expect(secondError == nil)
        #expect(!again.isEmpty)
    }

    @Test("a source that fails ends the stream with its error, after the finals already captured")
    func sourceFailure() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let samples = Array(try Fixtures.samples("two_cities.wav").prefix(16_000 * 8))
        let source = BufferSource(samples: samples, failure: AudioDeviceError.deviceDisappeared(name: "virt_mic"))
        let (finals, _, error) = await Self.collect(session.startTranscribing(from: source))
        #expect(error as? SpeechSessionError == .audioDeviceUnavailable(name: "virt_mic"))
        let text = finals.map { String($0.text.characters) }.joined()
        #expect(WordErrorRate.words(text).starts(with: ["it", "was", "the", "best", "of", "times"]), "\(text)")
    }
}

/// Final texts collected by one task and read by another.
final class FinalLog: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    func append(_ text: String) { lock.withLock { texts.append(text) } }
    var count: Int { lock.withLock { texts.count } }
    var all: [String] { lock.withLock { texts } }
}
