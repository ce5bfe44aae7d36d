@testable import AuralHistory
@testable import AuralKit
@testable import Speech
import AuralWhisper
import Foundation
import TestSupport
import Testing

@Suite("TranscriptStore")
struct TranscriptStoreTests {
    /// A final result built the way a session builds one: one run per word, with time range and confidence.
    static func result(_ words: [(String, Double, Double)], confidence: Double = 0.75) -> SpeechTranscriber.Result {
        let timed = words.map { TimedWord(text: $0.0, start: $0.1, end: $0.2, confidence: confidence) }
        let text = TranscriptText.attributed(timed, options: [.audioTimeRange, .transcriptionConfidence], etiquette: false)
        let range = CMTimeRange(
            start: CMTime(seconds: words.first?.1 ?? 0, preferredTimescale: 16000),
            end: CMTime(seconds: words.last?.2 ?? 0, preferredTimescale: 16000))
        return SpeechTranscriber.Result(alternatives: [text], range: range, resultsFinalizationTime: range.end)
    }

    @Test("a real session's final results come back with the same text, ranges and word attributes", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
    @MainActor
    func realSessionRoundTrip() async throws {
        let history = try TemporaryHistory()
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        // fixtures/ may be a link into another checkout; allow the folder it resolves to.
        let folder = Fixtures.audioDirectory.resolvingSymlinksInPath()
        let results = try await session.transcribe(
            audioFile: Fixtures.audio("beckett.wav"), options: FileTranscriptionOptions(allowedDirectories: [folder]))
        #expect(!results.isEmpty)
        let store = try TranscriptStore(url: history.url)
        let id = try store.beginSession(.init(source: Fixtures.audio("beckett.wav").path, locale: Locale(identifier: "en"), model: "tiny.en"))
        for result in results { #expect(try store.append(result, to: id)) }
        try store.endSession(id)

        let stored = try store.transcript(id).results
        #expect(stored.map(\.text) == results.map(\.text))  // characters and every run's attributes
        #expect(stored.map(\.range) == results.map(\.range))
        #expect(stored.allSatisfy { $0.isFinal })
        let firstWord = try #require(stored.first?.text.runs.first)
        #expect(firstWord.audioTimeRange != nil)
        #expect(firstWord.transcriptionConfidence != nil)
        #expect((stored.first?.text.runs.count ?? 0) >= 8)  // a run per word: "Ever tried, ever failed. No matter, …"
        #expect(try store.session(id).resultCount == results.count)
    }

    @Test("a live final of punctuation alone joins the segment before: no subtitle holds a lone period")
    func punctuationJoinsItsSegment() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let id = try store.beginSession(.init(source: "microphone", locale: Locale(identifier: "en"), model: "tiny.en"))
        try store.append(Self.result([("We had nothing", 10.0, 11.2), (" before", 11.2, 11.5), (" us", 11.5, 11.8)]), to: id)
        try store.append(Self.result([(".", 11.8, 11.8)]), to: id)
        try store.append(Self.result([(" We", 12.4, 12.6), (" were", 12.6, 12.8)]), to: id)
        try store.append(Self.result([(",", 12.8, 12.8), (" all", 12.9, 13.1)]), to: id)
        let transcript = try store.transcript(id)
        #expect(transcript.results.count == 4)  // as delivered
        #expect(transcript.segments.map(\.text) == ["We had nothing before us.", " We were, all"])
        #expect(transcript.segments.map(\.end) == [11.8, 13.1])
        #expect(transcript.segments.first?.words?.map(\.word) == ["We had nothing", " before", " us."])
        #expect(transcript.text == "We had nothing before us. We were, all")
        let srt = TranscriptFormat.srt.writer.render(segments: transcript.segments, info: transcript.info)
        #expect(srt.components(separatedBy: "\n\n").filter { !$0.isEmpty }.count == 2, "\(srt)")
    }

    @Test("a file transcription's segments come back equal, so every writer renders the same file", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
    func segmentsRoundTrip() async throws {
        let history = try TemporaryHistory()
        let transcription = try await offPool {
            let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
            return try Transcriber(model: model).transcribe(
                try Fixtures.samples("beckett.wav"), options: DecodingOptions(beamSize: 1, wordTimestamps: true))
        }
        let store = try TranscriptStore(url: history.url)
        let info = transcription.info
        let id = try store.beginSession(.init(
            source: "beckett.wav", locale: Locale(identifier: info.language), model: "tiny.en",
            languageProbability: info.languageProbability))
        for segment in transcription.segments { try store.append(segment, to: id) }
        try store.endSession(id, audioDuration: info.duration)

        let transcript = try store.transcript(id)
        #expect(transcript.segments == transcription.segments)
        #expect(transcript.info.language == info.language)
        #expect(transcript.info.duration == info.duration)
        for format in TranscriptFormat.allCases {
            #expect(
                format.writer.render(segments: transcript.segments, info: transcript.info)
                    == format.writer.render(segments: transcription.segments, info: TranscriptionInfo(
                        language: info.language, languageProbability: info.languageProbability,
                        allLanguageProbabilities: [], duration: info.duration)),
                "\(format)")
        }
    }

    @Test("the example in TranscriptStore's doc comment runs as written", .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
    @MainActor
    func docExample() async throws {
        let history = try TemporaryHistory()
        // The example's two inputs: a recording in an allowed folder (the temporary one) and the default location.
        let recording = history.folder.appendingPathComponent("beckett.wav")
        try FileManager.default.copyItem(at: Fixtures.audio("beckett.wav"), to: recording)
        setenv("AURALKIT_HISTORY", history.url.path, 1)
        defer { unsetenv("AURALKIT_HISTORY") }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let store = try TranscriptStore(url: TranscriptStore.defaultURL())
        let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
        let id = try store.beginSession(.init(source: recording.path, locale: session.locale, model: "tiny.en"))
        for try await result in session.streamTranscription(from: recording) {  // or startTranscribing() for live audio
            try store.append(result, to: id)  // stores final results, skips volatile ones
        }
        try store.endSession(id)
        for hit in try store.search("better") {
            print(hit.session.id, hit.text)
        }

        #expect(store.url == history.url)
        #expect(printed.count == 1)
        #expect(printed.first?.hasPrefix("1 ") == true)
        #expect(printed.first?.hasSuffix("Fail better.") == true)
    }

    @Test("volatile results are skipped; finals are numbered in the order they came")
    func skipsVolatileResults() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let id = try store.beginSession(.init(source: "microphone"))
        let final = Self.result([(" Hello", 0, 0.5), (" world.", 0.5, 1)])
        let volatile = SpeechTranscriber.Result(
            alternatives: [AttributedString(" and then")], range: CMTimeRange(start: CMTime(seconds: 1, preferredTimescale: 16000), duration: CMTime(seconds: 1, preferredTimescale: 16000)),
            resultsFinalizationTime: CMTime(seconds: 1, preferredTimescale: 16000))
        #expect(try store.append(final, to: id))
        #expect(try !store.append(volatile, to: id))
        #expect(try store.append(Self.result([(" Again.", 1, 1.5)]), to: id))
        let transcript = try store.transcript(id)
        #expect(transcript.text == " Hello world. Again.")
        #expect(transcript.session.duration == 1.5)
        #expect(transcript.session.endedAt == nil)
        #expect(transcript.segments.map(\.id) == [1, 2])
        #expect(transcript.segments.first?.words?.map(\.word) == [" Hello", " world."])
        #expect(transcript.segments.first?.words?.first?.probability == 0.75)
    }

    @Test("lists sessions newest first with their first words, and a missing session is an error")
    func listsSessions() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let older = try store.beginSession(.init(source: "a.wav", startedAt: Date(timeIntervalSince1970: 1_000)))
        try store.append(Self.result([(" It", 0, 0.2), (" was", 0.2, 0.4), (" the", 0.4, 0.5), (" best", 0.5, 0.9), (" of", 0.9, 1), (" times.", 1, 1.4)]), to: older)
        let newer = try store.beginSession(.init(source: "b.wav", startedAt: Date(timeIntervalSince1970: 2_000)))
        let long = (0..<30).map { (" word\($0)", Double($0), Double($0) + 1) }
        try store.append(Self.result(long), to: newer)

        let sessions = try store.sessions()
        #expect(sessions.map(\.id) == [newer, older])
        #expect(sessions[1].preview == "It was the best of times.")
        #expect(sessions[0].preview.hasSuffix("…"))
        #expect(sessions[0].preview.count <= 81)
        #expect(try store.sessions(limit: 1).map(\.id) == [newer])

        let missing = TranscriptStore.SessionID(rawValue: 999)
        #expect(throws: TranscriptStoreError.sessionNotFound(missing)) { try store.transcript(missing) }
        #expect(throws: TranscriptStoreError.sessionNotFound(missing)) { try store.append(Self.result([(" x", 0, 1)]), to: missing) }
        #expect(throws: TranscriptStoreError.sessionNotFound(missing)) { try store.endSession(missing) }
    }

    @Test("search ranks matches, marks the matching words, stems, and takes any input")
    func searches() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let first = try store.beginSession(.init(source: "one"))
        try store.append(Self.result([(" The", 0, 1), (" cities", 1, 2), (" slept.", 2, 3)]), to: first)
        let second = try store.beginSession(.init(source: "two"))
        try store.append(Self.result([(" A", 0, 1), (" city,", 1, 2), (" a", 2, 3), (" city,", 3, 4), (" a", 4, 5), (" city.", 5, 6)]), to: second)
        try store.append(Self.result([(" Nothing", 6, 7), (" here.", 7, 8)]), to: second)

        let hits = try store.search("city")
        #expect(hits.count == 2)
        #expect(hits.first?.session.id == second)  // three matches in a short text rank first
        let hit = try #require(hits.last)
        #expect(hit.text == " The cities slept.")
        #expect(hit.matches.map { String(hit.text[$0]) } == ["cities"])
        #expect(hit.range.start.seconds == 0 && hit.range.end.seconds == 3)

        #expect(try store.search("cit*").count == 2)
        #expect(try store.search("city slept").map(\.session.id) == [first])
        for odd in ["\"", "city\" OR \"x", "NEAR(", "-", "*", "AND", "  "] {
            _ = try store.search(odd)
        }
        #expect(try store.search("-").isEmpty)

        try store.delete(second)
        #expect(try store.search("city").map(\.session.id) == [first])
        #expect(throws: TranscriptStoreError.sessionNotFound(second)) { try store.delete(second) }
        #expect(try store.sessions().map(\.id) == [first])
    }

    @Test("a second store on the same file sees what the first wrote (WAL, no waiting for readers)")
    func twoConnections() throws {
        let history = try TemporaryHistory()
        let writer = try TranscriptStore(url: history.url)
        let reader = try TranscriptStore(url: history.url)
        let id = try writer.beginSession(.init(source: "microphone"))
        try writer.append(Self.result([(" Live", 0, 1)]), to: id)
        #expect(try reader.transcript(id).text == " Live")
        let mode = try writer.withConnection { try $0.query("PRAGMA journal_mode").first?.text(0) }
        #expect(mode == "wal")
    }

    @Test("the default location follows AURALKIT_HISTORY, then XDG_DATA_HOME, then ~/.local/share")
    func defaultURL() {
        #expect(TranscriptStore.defaultURL(environment: ["AURALKIT_HISTORY": "/tmp/h.db", "XDG_DATA_HOME": "/x"]).path == "/tmp/h.db")
        #expect(TranscriptStore.defaultURL(environment: ["XDG_DATA_HOME": "/x", "HOME": "/home/u"]).path == "/x/auralkit/history.sqlite3")
        #expect(TranscriptStore.defaultURL(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).path
            == "/home/u/.local/share/auralkit/history.sqlite3")
        #expect(TranscriptStore.defaultURL(environment: ["AURALKIT_HISTORY": "", "HOME": "/home/u"]).path
            == "/home/u/.local/share/auralkit/history.sqlite3")
    }
}
