import CoreMedia
import Foundation
@testable import Speech
import Testing

/// How live updates become phrase results (`ResultAssembler`), on made-up updates: no model needed.
@Suite("Phrase results")
struct PhraseAssemblyTests {
    static func word(_ text: String, _ start: Double, _ end: Double) -> TimedWord {
        TimedWord(text: text, start: start, end: end, confidence: 0.9)
    }

    static func update(
        committed: [TimedWord], volatile: [TimedWord] = [], final: Bool = false, endsPhrase: Bool = false
    ) -> StreamingTranscription.Update {
        StreamingTranscription.Update(
            committed: committed, volatile: volatile, audioTime: 0, computeSeconds: 0, isFinal: final, alternatives: [],
            endsPhrase: endsPhrase)
    }

    var assembler = ResultAssembler(reportingOptions: [.volatileResults], attributeOptions: [.audioTimeRange], etiquette: false)

    @Test("committed words without a sentence end stay in a volatile result that grows")
    mutating func growing() throws {
        let first = assembler.results(for: Self.update(committed: [Self.word("It", 0, 0.2), Self.word(" was", 0.2, 0.4)], volatile: [Self.word(" the", 0.4, 0.5)]))
        try #require(first.count == 1)
        #expect(first[0].isFinal == false)
        #expect(String(first[0].text.characters) == "It was the")
        let second = assembler.results(for: Self.update(committed: [Self.word(" the", 0.4, 0.5)], volatile: [Self.word(" best", 0.5, 0.8)]))
        #expect(second.map { String($0.text.characters) } == ["It was the best"])
        #expect(second.allSatisfy { !$0.isFinal })
    }

    @Test("a sentence end makes the phrase through it one final; the rest stays volatile")
    mutating func sentenceEnd() throws {
        _ = assembler.results(for: Self.update(committed: [Self.word("Stop", 0, 0.3)]))
        let results = assembler.results(for: Self.update(
            committed: [Self.word(" here.", 0.3, 0.6), Self.word(" Then", 0.9, 1.1)], volatile: [Self.word(" go", 1.1, 1.3)]))
        try #require(results.count == 2)
        #expect(results[0].isFinal)
        #expect(String(results[0].text.characters) == "Stop here.")
        #expect(results[0].range.start.seconds == 0)
        #expect(abs(results[0].range.end.seconds - 0.6) < 1e-4)
        #expect(!results[1].isFinal)
        #expect(String(results[1].text.characters) == " Then go")
    }

    @Test("a pause or a flush ends the phrase without a sentence end; an empty volatile result withdraws the last")
    mutating func pause() throws {
        _ = assembler.results(for: Self.update(committed: [Self.word("turn", 0, 0.3)], volatile: [Self.word(" left", 0.3, 0.6)]))
        let paused = assembler.results(for: Self.update(committed: [Self.word(" left", 0.3, 0.6)], endsPhrase: true))
        try #require(paused.count == 2)
        #expect(paused[0].isFinal)
        #expect(String(paused[0].text.characters) == "turn left")
        #expect(!paused[1].isFinal)
        #expect(String(paused[1].text.characters).isEmpty)
        let flushed = assembler.results(for: Self.update(committed: [Self.word(" now", 2, 2.3)], final: true))
        try #require(flushed.count == 1)
        #expect(flushed[0].isFinal)
        #expect(flushed[0].range.start.seconds == 2)
    }

    @Test("a phrase 12 s long becomes final at its last committed word")
    func longPhrase() {
        let words = (0..<13).map { Self.word(" w\($0)", Double($0), Double($0) + 0.5) }
        #expect(ResultAssembler.finalCount(of: Array(words.prefix(12)), ending: false) == 0)
        #expect(ResultAssembler.finalCount(of: words, ending: false) == 13)
    }
}
