import Foundation
import Synchronization

/// Context that helps the session transcribe, like Apple's `AnalysisContext`: words and phrases the audio is
/// likely to contain (names, jargon), so that they are spelt as given.
///
/// On Linux the strings become the Whisper prompt that precedes the first window (see `initialPrompt(from:)`): they
/// bias the engine's spelling, they do not restrict it. Safe to read and change from any thread.
public final class AnalysisContext: Sendable {
    private let strings = Mutex<[ContextualStringsTag: [String]]>([:])
    private let data = Mutex<[UserDataTag: any Sendable]>([:])

    /// An empty context.
    public init() {}

    /// The contextual strings, grouped by tag; `.general` is read first.
    public var contextualStrings: [ContextualStringsTag: [String]] {
        get { strings.withLock { $0 } }
        set { strings.withLock { $0 = newValue } }
    }

    /// The app's own information, by tag; the analysis does not read it.
    public var userData: [UserDataTag: any Sendable] {
        get { data.withLock { $0 } }
        set { data.withLock { $0 = newValue } }
    }

    /// A key of `userData`.
    public struct UserDataTag: RawRepresentable, Hashable, Sendable {
        /// The tag's name.
        public let rawValue: String

        /// The tag named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The tag named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// A group of contextual strings.
    public struct ContextualStringsTag: RawRepresentable, Hashable, Sendable {
        /// The tag's name.
        public let rawValue: String

        /// The tag named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The tag named `rawValue`.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Strings that apply to the whole session.
        public static let general = ContextualStringsTag(rawValue: "general")
    }
}

extension AnalysisContext {
    /// The longest prompt built from contextual strings, in characters: well under Whisper's limit of 223 prompt
    /// tokens, so the prompt never crowds out the previous window's text.
    static let maximumPromptLength = 200

    /// The Whisper initial prompt for `contextualStrings`, or `nil` when there are none.
    ///
    /// The strings are joined with ", " and end with ".": "AuralKit, PipeWire, Debian." A bare list carries the
    /// spellings in the fewest tokens; a label such as "Glossary:" would add tokens that spell nothing. Order:
    /// `.general` first, then the other tags by name, each tag's strings as given. Strings are trimmed, empty ones
    /// and repeats are dropped, and strings are taken while the prompt stays within `maximumPromptLength`
    /// characters: the first string that does not fit ends the list, so earlier strings win.
    static func initialPrompt(from contextualStrings: [ContextualStringsTag: [String]]) -> String? {
        let tags = contextualStrings.keys.sorted {
            ($0 == .general ? 0 : 1, $0.rawValue) < ($1 == .general ? 0 : 1, $1.rawValue)
        }
        var terms: [String] = []
        var length = 0
        for tag in tags {
            for raw in contextualStrings[tag] ?? [] {
                let term = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !term.isEmpty, !terms.contains(term) else { continue }
                let added = (terms.isEmpty ? 0 : 2) + term.count
                guard length + added + 1 <= maximumPromptLength else { return prompt(terms) }
                terms.append(term)
                length += added
            }
        }
        return prompt(terms)
    }

    private static func prompt(_ terms: [String]) -> String? {
        terms.isEmpty ? nil : terms.joined(separator: ", ") + "."
    }
}
