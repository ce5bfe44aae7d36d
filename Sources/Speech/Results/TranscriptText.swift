import CoreMedia
import AuralWhisper
import Foundation

/// A word as the engine timed it, in session time.
struct TimedWord: Sendable, Hashable {
    /// The word as Whisper writes it, with its leading space (" Hello,").
    var text: String
    /// When the word starts, in seconds from the start of the session's audio.
    var start: Double
    /// When the word ends, in seconds from the start of the session's audio.
    var end: Double
    /// The engine's probability for the word, 0…1.
    var confidence: Double
}

extension TimedWord {
    /// What the word says: its letters and digits, lowercased, without spaces or punctuation ("so." and "So" give "so").
    var spoken: String { String(text.lowercased().filter { $0.isLetter || $0.isNumber }) }

    /// The engine's word timing, its probability as the confidence.
    /// The word moved `seconds` later.
    func shifted(by seconds: Double) -> TimedWord {
        var word = self
        word.start += seconds
        word.end += seconds
        return word
    }

    init(_ word: WordTiming) {
        self.init(text: word.word, start: word.start, end: word.end, confidence: word.probability)
    }
}

/// Builds the `AttributedString` of a result from timed words.
enum TranscriptText {
    /// The text of `words` concatenated exactly (leading spaces kept), one run per word carrying the attributes
    /// `options` asks for: `audioTimeRange` (start and end rounded to the nearest 16 kHz sample; an end before the
    /// start is taken as the start) and `transcriptionConfidence` (clamped to 0…1). Every run also carries its word's
    /// text (`run.text`), so each word is a run of its own.
    /// - Parameter etiquette: mask expletives (`TranscriptionOption.etiquetteReplacements`).
    static func attributed(
        _ words: [TimedWord], options: Set<SpeechTranscriber.ResultAttributeOption>, etiquette: Bool
    ) -> AttributedString {
        var text = AttributedString()
        for word in words {
            let shown = etiquette ? Etiquette.masked(word.text) : word.text
            var piece = AttributedString(shown)
            piece[AttributeScopes.SpeechAttributes.RunTextAttribute.self] = shown
            if options.contains(.audioTimeRange) {
                let start = CMTime(seconds: word.start, preferredTimescale: Int32(CMTime.samplesPerSecond))
                let end = CMTime(seconds: word.end, preferredTimescale: Int32(CMTime.samplesPerSecond))
                piece.audioTimeRange = CMTimeRange(start: start, end: max(start, end))
            }
            if options.contains(.transcriptionConfidence) {
                piece.transcriptionConfidence = min(max(word.confidence, 0), 1)
            }
            text.append(piece)
        }
        return text
    }
}

/// The expletive masking of `TranscriptionOption.etiquetteReplacements`.
///
/// The list is this project's own: a handful of common English expletives and their inflections, chosen by hand,
/// not taken from any published list. Matching is whole-word and case-insensitive; a word is a run of letters, so
/// " Shit," becomes " ****,", "shit's" becomes "****'s" and "shitake" stays.
enum Etiquette {
    static let expletives: Set<String> = [
        "fuck", "fucks", "fucked", "fucker", "fuckers", "fucking", "motherfucker", "motherfuckers",
        "shit", "shits", "shitty", "bullshit", "bitch", "bitches", "bastard", "bastards",
        "asshole", "assholes", "cunt", "cunts", "damn", "goddamn", "dammit",
    ]

    /// `text` with each listed expletive replaced by as many asterisks as it has characters.
    static func masked(_ text: String) -> String {
        var result = ""
        var word = ""
        func flush() {
            result += expletives.contains(word.lowercased()) ? String(repeating: "*", count: word.count) : word
            word = ""
        }
        for character in text {
            if character.isLetter {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}

/// The punctuation Whisper writes at the end of a word, for the package's modules that handle it on its own: a live
/// session makes a sentence's period final after its word once a later decode or a pause confirms it.
package enum WordPunctuation {
    /// Sentence and clause marks: ". , ! ? ; : …" and their CJK forms.
    package static func isMark(_ character: Character) -> Bool { ".,!?;:…。，、！？".contains(character) }

    /// Whether `text` starts with a mark: punctuation that goes on the word before it.
    package static func startsWithMark(_ text: some StringProtocol) -> Bool { text.first.map(isMark) ?? false }

    /// The marks that end a sentence: ". ! ? …" and their CJK forms.
    package static func endsSentence(_ character: Character) -> Bool { ".!?…。！？".contains(character) }
}
