@testable import AuralKit
@testable import Speech
@testable import AuralWhisper
import Foundation
import TestSupport
import Testing

/// The streaming policy over the real model on real speech, replayed without a clock (the same text on every run).
@Suite("Live replay", .requiresFixtures(audio: ["two_cities.wav", "beckett.wav"], models: ["tiny.en"]))
struct LiveReplayTests {
    private static func replay(_ recording: String) async throws -> (events: [LiveReplay.Event], offline: String, samples: [Float]) {
        try await offPool { try replayHere(recording) }
    }

    private static func replayHere(_ recording: String) throws -> (events: [LiveReplay.Event], offline: String, samples: [Float]) {
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
        let samples = try Fixtures.samples(recording)
        let events = try LiveReplay(model: model).run(samples)
        let offline = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: "en"))
            .segments.map(\.text).joined()
        return (events, offline, samples)
    }

    @Test("finals only accumulate, in time order, and together hold the whole recording's words",
          arguments: ["two_cities.wav", "beckett.wav"])
    func finalsAccumulate(recording: String) async throws {
        let (events, offline, samples) = try await Self.replay(recording)
        let finals = events.flatMap(\.committed)
        let live = finals.map(\.text).joined()
        let delta = WordErrorRate.percent(reference: offline, hypothesis: live)
        // The live text is decoded from shorter buffers than the file's 30-second windows; a few words may differ.
        #expect(delta <= 6, "live: \(live)\nfile: \(offline)")
        #expect(!live.hasPrefix(" "), "the first final has no leading space")
        for (a, b) in zip(finals, finals.dropFirst()) {
            #expect(b.start >= a.start - 0.5, "finals out of order: \(a) then \(b)")
        }
        #expect(finals.allSatisfy { $0.end <= Double(samples.count) / 16_000 + 0.5 })
        // No word is delivered twice: no final repeats the words just before it.
        let wordList = WordErrorRate.words(live)
        for n in 3...5 where wordList.count >= 2 * n {
            for i in n..<(wordList.count - n + 1) {
                #expect(Array(wordList[i..<(i + n)]) != Array(wordList[(i - n)..<i]) || offlineRepeats(offline, wordList[i..<(i + n)]),
                        "repeated words \(wordList[i..<(i + n)])")
            }
        }
        #expect(events.last?.isFlush == true)
        #expect(events.last?.volatile.isEmpty == true)
    }

    @Test("punctuation guessed where an update's audio stopped is not forced on the words that follow")
    func sentenceEndGuessIsNotForced() async throws {
        // two_cities.wav from 28 s: "…so far like the present period, that some of its noisiest authorities…". With
        // updates 0.3 s off the half-second grid, one update's audio stops right after "period" and two decodes write
        // "period." there. Committed with its period and forced as the next decodes' prefix, the period made them
        // start a sentence: "present period. The sum of its". The period now waits for a decode that heard on.
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: AnalyzerConfiguration.default.computeType)
        let samples = Array(try Fixtures.samples("two_cities.wav")[(28 * 16_000)..<(39 * 16_000)])
        let events = try await offPool { try LiveReplay(model: model, phase: 0.3).run(samples) }
        let live = events.flatMap(\.committed).map(\.text).joined()
        #expect(WordErrorRate.words(live).joined(separator: " ").contains("present period that some of its noisiest"), "\(live)")
        #expect(!live.contains(". The sum"), "\(live)")
    }

    @Test("an unlikely word waits for a third decode: \"In short\", not \"And sure\"")
    func unsureSentenceStartWaits() async throws {
        // two_cities.wav's first 34 s with updates 0.15 s off the half-second grid: after "…the other way." and a
        // pause, two decodes agreed on "And" (p 0.25), which became final, and every later decode went on from it:
        // "And sure, the period". The third decode heard "In short"; a word with p under 0.5 now waits for it.
        // (The same on the AVX2 and AVX-512 int8 paths.) The case arose with the trim that kept about a second of
        // audio (`trimKeepSeconds` 0); the default 6-s trim avoids it here by itself, so the replay keeps the old
        // trim to hold the rule to it. With the encoder's int8 attention of CPUs with VNNI the numbers differ: without
        // the rule phases 0.1, 0.15, 0.25 and 0.45 commit "And sure"; with it only 0.15, where three decodes in a row
        // say "And". So the replay there is at phase 0.1.
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: AnalyzerConfiguration.default.computeType)
        let samples = Array(try Fixtures.samples("two_cities.wav")[..<(34 * 16_000)])
        let phase = model.encoder.int8Attention ? 0.1 : 0.15
        let events = try await offPool { try LiveReplay(model: model, phase: phase, trimKeepSeconds: 0).run(samples) }
        let live = WordErrorRate.words(events.flatMap(\.committed).map(\.text).joined()).joined(separator: " ")
        #expect(live.contains("the other way in short the period"), "\(live)")
    }

    @Test("an unlikely word the first decode heard at its audio's end waits for a third: \"its\", not \"it's\"", arguments: [0.0, 0.45])
    func barelyHeardWordWaits(phase: Double) async throws {
        // two_cities.wav's first 37 s. Without the rule, one decode heard "its" cut off by its audio's end and wrote
        // "it's" (p 0.55), the next repeated it, and it became final: at phase 0.45 on the AVX-512 int8 path, at
        // phase 0 on the AVX2 one (`AURALKIT_CPU_LEVEL=avx2`). The word now waits for a decode that hears it out.
        // (At phase 0 the words before it come out "the sum" for "that some" since the trim keeps 6 s of audio: a
        // miss of its own, docs/streaming.md, so only the words from "of" on are checked.)
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: AnalyzerConfiguration.default.computeType)
        let samples = Array(try Fixtures.samples("two_cities.wav")[..<(37 * 16_000)])
        let events = try await offPool { try LiveReplay(model: model, phase: phase).run(samples) }
        let live = WordErrorRate.words(events.flatMap(\.committed).map(\.text).joined()).joined(separator: " ")
        #expect(live.contains("of its noisiest authorities"), "\(live)")
    }

    @Test("a trim keeps the last 6 s of audio, committed words included, and cuts at a committed word's end")
    func trimKeepsHeardContext() async throws {
        // Past 15 s the buffer is cut. Cut at the committed word before the last, it kept about a second, and after
        // "…the other way" and a pause two decodes of that short buffer agreed on "Ensure" for "In short" (real-time
        // runs, and replays of what the virtual microphone captured). Every trim now leaves the next decode at least
        // `trimKeepSeconds` of audio.
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: AnalyzerConfiguration.default.computeType)
        let samples = try Fixtures.samples("two_cities.wav")
        let events = try await offPool { try LiveReplay(model: model).run(samples) }
        // An update whose buffer starts later than the one before it trimmed; what it kept runs to its audio time.
        let trims = zip(events, events.dropFirst()).filter { !$1.isFlush && $1.bufferStart > $0.bufferStart }.map(\.1)
        let keep = StreamingTranscription.Configuration.defaultTrimKeepSeconds
        #expect(trims.count >= 2, "a 44 s recording is trimmed more than once: \(trims.map(\.audioTime))")
        let wordEnds = events.flatMap(\.committed).map(\.end)
        for trim in trims {
            let kept = trim.audioTime - trim.bufferStart
            #expect(kept >= keep && kept <= StreamingTranscription.Configuration.defaultMaxBufferSeconds, "kept \(kept) s at \(trim.audioTime) s")
            #expect(wordEnds.contains { abs($0 - trim.bufferStart) < 0.001 }, "the cut at \(trim.bufferStart) s is no committed word's end")
        }
    }

    private func offlineRepeats(_ offline: String, _ words: ArraySlice<String>) -> Bool {
        let phrase = words.joined(separator: " ")
        return WordErrorRate.words(offline).joined(separator: " ").contains(phrase + " " + phrase)
    }

    @Test("a buffer that reaches Whisper's 30 s with words pending delivers them as final before it is cut")
    func forcedCutDeliversPendingWords() async throws {
        // Updates every 10 s with a 40 s buffer limit: the third update's buffer holds 30 s, so the policy must cut it
        // whatever was agreed, and the words of that decode that were still pending become final there. Those words
        // must reach the finals: they leave the audio the next decodes hear.
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
        let samples = try Fixtures.samples("two_cities.wav")
        // The live configuration caps a decode at 96 new tokens, enough for the 15 s a live buffer holds; 30 s of
        // this recording need more, so the cap is lifted here.
        var uncapped = LiveReplay.liveOptions(language: "en")
        uncapped.maxNewTokens = nil
        let options = uncapped
        let events = try await offPool { try LiveReplay(model: model, cadence: 10, maxBufferSeconds: 40, options: options).run(samples) }
        let offline = try await offPool {
            try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: "en")).segments.map(\.text).joined()
        }
        let live = events.flatMap(\.committed).map(\.text).joined()
        #expect(WordErrorRate.percent(reference: offline, hypothesis: live) <= 6, "live: \(live)\nfile: \(offline)")
        let cut = try #require(events.first { $0.audioTime >= 29 && $0.audioTime < 31 })
        #expect(cut.volatile.isEmpty, "the forced words are final, not volatile: \(cut.volatile)")
    }

    @Test("aligned commit: words become final no later than with LocalAgreement, and the text still holds the recording")
    func alignedCommit() async throws {
        let model = try WhisperModel(folder: Fixtures.modelFolder("tiny.en"))
        let samples = try Fixtures.samples("beckett.wav")
        let agreed = try await offPool { try LiveReplay(model: model).run(samples) }
        let aligned = try await offPool { try LiveReplay(model: model, policy: .alignedCommit(margin: 0.6)).run(samples) }
        func commitTimes(_ events: [LiveReplay.Event]) -> [Double] {
            events.flatMap { event in event.committed.map { _ in event.audioTime } }
        }
        let offline = try await offPool {
            try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: "en")).segments.map(\.text).joined()
        }
        let text = aligned.flatMap(\.committed).map(\.text).joined()
        #expect(WordErrorRate.percent(reference: offline, hypothesis: text) <= 10, "\(text)")
        let a = commitTimes(agreed), b = commitTimes(aligned)
        let mean = { (x: [Double]) in x.reduce(0, +) / Double(max(1, x.count)) }
        #expect(mean(b) <= mean(a), "aligned \(b) vs agreed \(a)")
    }

    @Test("no invented word after the last spoken one: finals end with the recording's last word",
          arguments: [(0.2, 1.0), (1.2, 1.5)])
    func nothingInventedAfterSpeech(leadingSeconds: Double, trailingSeconds: Double) async throws {
        // two_cities.wav has a breath 1.2 s after its last word. On it, without the trailing-word rules: shifted by
        // 0.2 s and followed by a second of silence, a second "only" (float32: "So," at p 0.00, which two updates
        // agreed on); shifted by 1.2 s with 1.5 s after it, as the live test plays it, "you can only." ("can" p 0.36
        // with no duration, "only." p 0.04).
        // A session's compute type (int8 where oneDNN opens), with which these words were seen.
        let model = try Fixtures.sessionModel("tiny.en")
        let recording = try Fixtures.samples("two_cities.wav")
        let samples = [Float](repeating: 0, count: Int(leadingSeconds * 16_000)) + recording
            + [Float](repeating: 0, count: Int(trailingSeconds * 16_000))
        let events = try await offPool { try LiveReplay(model: model).run(samples) }
        let words = WordErrorRate.words(events.flatMap(\.committed).map(\.text).joined())
        #expect(words.suffix(3) == ["of", "comparison", "only"], "\(words.suffix(5))")
    }

    @Test("volatile words appear before they are final")
    func volatileFirst() async throws {
        let (events, _, _) = try await Self.replay("beckett.wav")
        let firstVolatile = try #require(events.firstIndex { !$0.volatile.isEmpty })
        let firstFinal = try #require(events.firstIndex { !$0.committed.isEmpty })
        #expect(firstVolatile < firstFinal)
        #expect(events.contains { !$0.committed.isEmpty && !$0.isFlush }, "words become final while audio still comes")
    }
}
