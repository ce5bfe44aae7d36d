import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("Etiquette replacements")
struct TranscriptTextTests {
    @Test(
        "listed expletives become asterisks of the same length, whole words only, any case",
        arguments: [
            (" Shit,", " ****,"), (" damn it", " **** it"), (" FUCKING great", " ******* great"),
            (" shit's", " ****'s"),
            (" shitake", " shitake"), (" Scunthorpe", " Scunthorpe"), (" hello", " hello"), ("", ""),
            (" bull-shit", " bull-****"),
        ])
    func masking(input: String, expected: String) {
        #expect(Etiquette.masked(input) == expected)
        #expect(Etiquette.masked(input).count == input.count)
    }

    @Test("the list is short and lower-case")
    func list() {
        #expect(Etiquette.expletives.count < 30)
        #expect(Etiquette.expletives.allSatisfy { $0 == $0.lowercased() && $0.allSatisfy(\.isLetter) })
    }

    @Test("attributed(_:options:etiquette:) masks words and keeps each word's attributes")
    func attributed() {
        let words = [
            TimedWord(text: " Oh", start: 0, end: 0.3, confidence: 0.9),
            TimedWord(text: " shit!", start: 0.3, end: 0.7, confidence: 0.8),
        ]
        let masked = TranscriptText.attributed(words, options: [.audioTimeRange], etiquette: true)
        #expect(String(masked.characters) == " Oh ****!")
        #expect(Array(masked.runs).last?.audioTimeRange == CMTimeRange(samples: 4_800..<11_200))
        let unmasked = TranscriptText.attributed(words, options: [], etiquette: false)
        #expect(String(unmasked.characters) == " Oh shit!")
    }
}
