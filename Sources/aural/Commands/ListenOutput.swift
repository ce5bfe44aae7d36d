import AuralKit
import Foundation

/// Where `aural listen` shows what it hears: the live view in a terminal, final text as lines for a pipe, or
/// every result as JSON lines.
@MainActor
protocol ListenOutput: AnyObject {
    /// Shows one result of the session's stream.
    func show(_ result: SpeechTranscriber.Result)
    /// Shows the status line (the terminal view only).
    func show(status: StatusLine)
    /// Tells the user something that is not transcript, such as a change of input.
    func notice(_ text: String)
    /// Takes a new terminal size (the terminal view only).
    func resize(width: Int, height: Int)
    /// Ends the output: the last line is complete.
    func finish()
}

/// The live view: final text, dim volatile text replaced in place, a status line (`LiveTranscriptView`).
@MainActor
final class TerminalListenOutput: ListenOutput {
    private var view: LiveTranscriptView
    private var volatile: SpeechTranscriber.Result?
    /// The status line as last drawn: the meter redraws it ten times a second, mostly unchanged.
    private var shownStatus: String?

    init(width: Int, height: Int, colors: Bool) {
        view = LiveTranscriptView(width: width, height: height, colors: colors)
    }

    func show(_ result: SpeechTranscriber.Result) {
        if result.isFinal {
            // The volatile words the final covers are now final: keep only those after it, until the next
            // volatile result replaces them (usually at once).
            let rest = volatile.map { String($0.text(startingAt: result.range.end).characters) } ?? ""
            volatile = nil
            TerminalOutput.write(view.update(final: String(result.text.characters), volatile: rest))
        } else {
            volatile = result
            TerminalOutput.write(view.update(volatile: String(result.text.characters)))
        }
    }

    func show(status: StatusLine) {
        let text = status.text
        guard text != shownStatus else { return }
        shownStatus = text
        TerminalOutput.write(view.update(status: text))
    }

    func notice(_ text: String) {
        TerminalOutput.write(view.notice(text))
    }

    func resize(width: Int, height: Int) {
        TerminalOutput.write(view.resize(width: width, height: height))
    }

    func finish() {
        TerminalOutput.write(view.finish())
    }
}

/// For a pipe: the final text as it arrives, a sentence to a line (a line ends after a final result that ends a
/// sentence, and when the session ends); notices on standard error. A final that goes on the open line (punctuation
/// a later update put after the last word, or the next words of the sentence) is written at once, so a reader of the
/// bytes sees every final when it comes, and a reader of lines gets whole sentences.
@MainActor
final class TextLinesListenOutput: ListenOutput {
    private var lineIsOpen = false

    func show(_ result: SpeechTranscriber.Result) {
        guard result.isFinal else { return }
        var text = String(result.text.characters)
        if !lineIsOpen { text = String(text.drop(while: \.isWhitespace)) }
        guard !text.isEmpty else { return }
        let endsSentence = text.last.map(WordPunctuation.endsSentence) ?? false
        TerminalOutput.write(endsSentence ? text + "\n" : text)
        lineIsOpen = !endsSentence
    }

    func show(status: StatusLine) {}

    func notice(_ text: String) {
        TerminalOutput.write(text + "\n", to: STDERR_FILENO)
    }

    func resize(width: Int, height: Int) {}

    func finish() {
        if lineIsOpen { TerminalOutput.write("\n") }
        lineIsOpen = false
    }
}

/// `--json`: every result, volatile and final, as one JSON object per line (`ListenResultLine`); notices on
/// standard error.
@MainActor
final class JSONLinesListenOutput: ListenOutput {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func show(_ result: SpeechTranscriber.Result) {
        guard let data = try? encoder.encode(ListenResultLine(result)) else { return }
        TerminalOutput.write(String(decoding: data, as: UTF8.self) + "\n")
    }

    func show(status: StatusLine) {}

    func notice(_ text: String) {
        TerminalOutput.write(text + "\n", to: STDERR_FILENO)
    }

    func resize(width: Int, height: Int) {}

    func finish() {}
}

/// One line of `aural listen --json`:
/// `{"end":2.1,"isFinal":true,"start":0.4,"text":" It was the best","words":[{"confidence":0.93,"end":0.6,"start":0.4,"text":" It"},…]}`.
///
/// Times are seconds of the session's audio. A volatile result replaces the previous volatile one; finals only
/// accumulate, and their texts concatenated are the transcript. `alternatives` (other transcriptions, most likely
/// first) appears when the session reports more than one.
struct ListenResultLine: Codable, Equatable {
    /// Whether the result is final (it will not change) or volatile (the next result replaces it).
    var isFinal: Bool
    /// Start of the audio the result covers, in seconds.
    var start: Double
    /// End of the audio the result covers, in seconds.
    var end: Double
    /// The most likely text, words with their leading spaces.
    var text: String
    /// Each word with its time span and confidence, when the session's attribute options carry them.
    var words: [Word]
    /// The other transcriptions, when there are any.
    var alternatives: [String]?

    /// A word of a result.
    struct Word: Codable, Equatable {
        /// The word with its leading space.
        var text: String
        /// When the word starts, in seconds; nil without the `audioTimeRange` attribute.
        var start: Double?
        /// When the word ends, in seconds; nil without the `audioTimeRange` attribute.
        var end: Double?
        /// The engine's confidence, 0…1; nil without the `transcriptionConfidence` attribute.
        var confidence: Double?
    }

    init(_ result: SpeechTranscriber.Result) {
        isFinal = result.isFinal
        start = Self.rounded(result.range.start.seconds)
        end = Self.rounded(result.range.end.seconds)
        text = String(result.text.characters)
        words = result.text.runs.compactMap { run in
            let word = String(result.text[run.range].characters)
            guard !word.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return Word(
                text: word, start: run.audioTimeRange.map { Self.rounded($0.start.seconds) },
                end: run.audioTimeRange.map { Self.rounded($0.end.seconds) },
                confidence: run.transcriptionConfidence.map { ($0 * 1000).rounded() / 1000 })
        }
        let others = result.alternatives.dropFirst().map { String($0.characters) }
        alternatives = others.isEmpty ? nil : others
    }

    /// Milliseconds are enough: the session's times are 16 kHz samples.
    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
