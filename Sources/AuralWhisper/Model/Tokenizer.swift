import Foundation

/// Whisper's byte-level BPE tokenizer, read from a CTranslate2 model folder.
///
/// Token ids are line numbers of `vocabulary.txt`; the BPE merges and the added (special)
/// tokens come from `tokenizer.json`, or from the binary copy of them that the first load writes beside it
/// (`TokenizerTables`). Decoding follows faster-whisper's `Tokenizer.decode`,
/// encoding matches Hugging Face `tokenizers` (`encode(text, add_special_tokens=False)`).
///
/// ```swift
/// let tokenizer = try Tokenizer(folder: modelFolder)
/// let ids = tokenizer.encode(" Ask not")          // [16981, 407] with tiny.en
/// let text = tokenizer.decode(ids + [tokenizer.eot]) // " Ask not"
/// ```
///
/// The value is immutable and safe to share between threads.
struct Tokenizer: Sendable {
    /// Number of tokens in `vocabulary.txt`, timestamps included; equals the model's embedding rows.
    let vocabularySize: Int
    /// `<|endoftext|>`: ends a transcript; every id from here up is a special or timestamp token.
    let eot: Int
    /// `<|startoftranscript|>`: first token of every decoder prompt.
    let sot: Int
    /// `<|translate|>`: task token asking for an English translation.
    let translate: Int
    /// `<|transcribe|>`: task token asking for a transcript in the spoken language.
    let transcribe: Int
    /// `<|startoflm|>`: language-model start token, suppressed while decoding.
    let startOfLM: Int
    /// `<|startofprev|>`: starts the previous-text prompt placed before `sot`.
    let startOfPrev: Int
    /// `<|nospeech|>`, or `<|nocaptions|>` in older files: its probability at the first step is the no-speech probability.
    let noSpeech: Int
    /// `<|notimestamps|>`: asks for text without timestamp tokens.
    let noTimestamps: Int
    /// Whisper's language codes ("en", "zh", …) in token order, one per language token.
    let languageCodes: [String]

    /// The UTF-8 bytes of every token, concatenated in id order.
    private let tokenBytes: [UInt8]
    /// Where each token's bytes start in `tokenBytes`; `vocabularySize + 1` entries.
    private let tokenByteStarts: [Int32]
    /// The byte tokens and merges of BPE (`tokenizer.json`, or its binary copy).
    private let tables: TokenizerTables
    /// The added tokens of `tokenizer.json` ("<|endoftext|>", "<|en|>", …) keyed by their first scalar, longest first.
    private let addedTokens: [Unicode.Scalar: [AddedToken]]

    /// A token that `tokenizer.json` matches in raw text before pre-tokenization.
    private struct AddedToken: Sendable {
        /// The token's text as scalars.
        var scalars: [Unicode.Scalar]
        /// Its id.
        var id: Int
    }

    /// Reads `vocabulary.txt` and `tokenizer.json` from a CTranslate2 Whisper folder.
    ///
    /// - Throws: `WhisperModelError.missingFile` or `.unreadableFile` when a file cannot be read,
    ///   `.corruptModel` when a file is malformed or lacks one of Whisper's special tokens.
    init(folder: URL) throws {
        let vocabularyURL = folder.appendingPathComponent("vocabulary.txt")
        let tokens = try Self.readVocabulary(vocabularyURL)

        func special(_ names: String...) throws -> Int {
            for name in names {
                if let id = tokens.firstIndex(of: name) { return id }
            }
            throw WhisperModelError.corruptModel(
                path: vocabularyURL.path, reason: "The vocabulary has no \(names.joined(separator: " or ")) token.")
        }
        vocabularySize = tokens.count
        eot = try special("<|endoftext|>")
        sot = try special("<|startoftranscript|>")
        translate = try special("<|translate|>")
        transcribe = try special("<|transcribe|>")
        startOfLM = try special("<|startoflm|>")
        startOfPrev = try special("<|startofprev|>")
        noSpeech = try special("<|nospeech|>", "<|nocaptions|>")
        noTimestamps = try special("<|notimestamps|>")
        guard sot < translate else {
            throw WhisperModelError.corruptModel(
                path: vocabularyURL.path, reason: "<|translate|> (\(translate)) comes before <|startoftranscript|> (\(sot)).")
        }
        languageCodes = tokens[(sot + 1)..<translate].map { String($0.dropFirst(2).dropLast(2)) }

        let inverse = Self.inverseByteTable
        var bytes: [UInt8] = []
        var starts: [Int32] = [0]
        starts.reserveCapacity(tokens.count + 1)
        for token in tokens {
            for scalar in token.unicodeScalars {
                let value = Int(scalar.value)
                if value < inverse.count, inverse[value] >= 0 {
                    bytes.append(UInt8(inverse[value]))
                } else {
                    bytes.append(contentsOf: String(scalar).utf8)
                }
            }
            starts.append(Int32(bytes.count))
        }
        tokenBytes = bytes
        tokenByteStarts = starts

        tables = try TokenizerTables.load(folder: folder, tokens: tokens)
        var added: [Unicode.Scalar: [AddedToken]] = [:]
        for token in tables.addedTokens {
            let scalars = Array(token.content.unicodeScalars)
            guard let first = scalars.first else { continue }
            added[first, default: []].append(AddedToken(scalars: scalars, id: token.id))
        }
        addedTokens = added.mapValues { $0.sorted { $0.scalars.count > $1.scalars.count } }
    }

    /// Whether the model knows languages other than English (vocabulary of 51865 tokens or more).
    var isMultilingual: Bool { vocabularySize >= 51865 }

    /// `<|0.00|>`, the first timestamp token; each following id adds 0.02 s, up to `<|30.00|>`.
    var timestampBegin: Int { noTimestamps + 1 }

    /// The language token for a code such as "en", or nil if the vocabulary has none.
    ///
    /// English-only models have these tokens too, but must not be asked to detect languages.
    func languageToken(for code: String) -> Int? {
        languageCodes.firstIndex(of: code).map { sot + 1 + $0 }
    }

    /// The language code of a language token, or nil if `token` is not one.
    func languageCode(forToken token: Int) -> String? {
        let index = token - sot - 1
        return languageCodes.indices.contains(index) ? languageCodes[index] : nil
    }

    /// The text of `ids`, ignoring special and timestamp tokens (ids ≥ `eot`).
    ///
    /// Invalid UTF-8, such as a character cut between two tokens at the end, becomes U+FFFD.
    func decode(_ ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where id >= 0 && id < eot {
            appendBytes(of: id, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of `ids` with timestamp tokens written as `<|1.24|>`, as faster-whisper's `decode_with_timestamps`.
    ///
    /// Other special tokens are left out; the text between two timestamps is decoded on its own.
    func decodeWithTimestamps(_ ids: [Int]) -> String {
        var text = ""
        var bytes: [UInt8] = []
        for id in ids {
            if id >= timestampBegin {
                text += String(decoding: bytes, as: UTF8.self)
                bytes.removeAll(keepingCapacity: true)
                let hundredths = (id - timestampBegin) * 2
                let fraction = hundredths % 100
                text += "<|\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)|>"
            } else if id >= 0 && id < eot {
                appendBytes(of: id, to: &bytes)
            }
        }
        return text + String(decoding: bytes, as: UTF8.self)
    }

    /// The ids of `text`, as Hugging Face `tokenizers` encodes it without added special tokens.
    ///
    /// Special token text such as "<|endoftext|>" inside `text` becomes that special token.
    /// Prompts are usually encoded as `" " + text.trimmed`, as faster-whisper does.
    func encode(_ text: String) -> [Int] {
        let scalars = Array(text.unicodeScalars)
        var ids: [Int] = []
        var chunkStart = 0
        var index = 0
        while index < scalars.count {
            if let token = addedToken(at: index, in: scalars) {
                encodeOrdinary(scalars[chunkStart..<index], into: &ids)
                ids.append(token.id)
                index += token.scalars.count
                chunkStart = index
            } else {
                index += 1
            }
        }
        encodeOrdinary(scalars[chunkStart...], into: &ids)
        return ids
    }

    /// Groups `tokens` into words, as openai/whisper's `split_to_word_tokens` for `language`.
    ///
    /// For zh, ja, th, lo, my and yue a word is every run of tokens that decodes to whole
    /// characters; otherwise a word starts at a token beginning with a space, at a special token
    /// and at punctuation. Each word's text is decoded as `decodeWithTimestamps` does, so a
    /// trailing `eot` gives an empty word. Trailing tokens that never complete a character are dropped.
    func splitToWordTokens(_ tokens: [Int], language: String) -> [(word: String, tokens: [Int])] {
        let pieces = splitOnCharacters(tokens)
        if ["zh", "ja", "th", "lo", "my", "yue"].contains(language) {
            return pieces
        }
        var words: [(word: String, tokens: [Int])] = []
        for piece in pieces {
            let special = piece.tokens[0] >= eot
            let startsWithSpace = piece.word.unicodeScalars.first == " "
            if words.isEmpty || special || startsWithSpace || Self.isPunctuation(piece.word) {
                words.append(piece)
            } else {
                words[words.count - 1].word += piece.word
                words[words.count - 1].tokens += piece.tokens
            }
        }
        return words
    }

    // MARK: - Decoding helpers

    /// Appends the bytes of token `id` to `bytes`.
    private func appendBytes(of id: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: tokenBytes[Int(tokenByteStarts[id])..<Int(tokenByteStarts[id + 1])])
    }

    /// Splits `tokens` where the text decoded so far ends on a whole character (openai's `split_tokens_on_unicode`).
    ///
    /// A run of tokens ends when its text has no U+FFFD, or when its first U+FFFD is also in the full text.
    private func splitOnCharacters(_ tokens: [Int]) -> [(word: String, tokens: [Int])] {
        let replacement: Unicode.Scalar = "\u{FFFD}"
        let full = Array(decodeWithTimestamps(tokens).unicodeScalars)
        var pieces: [(word: String, tokens: [Int])] = []
        var current: [Int] = []
        var offset = 0
        for token in tokens {
            current.append(token)
            let decoded = decodeWithTimestamps(current)
            let scalars = Array(decoded.unicodeScalars)
            if let index = scalars.firstIndex(of: replacement) {
                let position = offset + index
                guard position < full.count, full[position] == replacement else { continue }
            }
            pieces.append((decoded, current))
            current = []
            offset += scalars.count
        }
        return pieces
    }

    /// Whether `text` without surrounding white space is empty or a run of Python's `string.punctuation`.
    ///
    /// Follows `text.strip() in string.punctuation`, which tests for a substring of that constant.
    /// Python's `strip` also removes the separators U+001C–U+001F, which are not Unicode White_Space.
    private static func isPunctuation(_ text: String) -> Bool {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isWhitespace || (0x1C...0x1F).contains(scalar.value)
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return true }
        return "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".contains(String(scalars[first...last]))
    }

    // MARK: - Encoding helpers

    /// The longest added token whose text starts at `index`, if any.
    private func addedToken(at index: Int, in scalars: [Unicode.Scalar]) -> AddedToken? {
        guard let candidates = addedTokens[scalars[index]] else { return nil }
        return candidates.first { token in
            index + token.scalars.count <= scalars.count
                && scalars[index..<(index + token.scalars.count)].elementsEqual(token.scalars)
        }
    }

    /// Pre-tokenizes `scalars` with the GPT-2 pattern and appends the BPE ids of every piece.
    private func encodeOrdinary(_ scalars: ArraySlice<Unicode.Scalar>, into ids: inout [Int]) {
        var start = scalars.startIndex
        var utf8: [UInt8] = []
        while start < scalars.endIndex {
            let end = Self.pieceEnd(scalars, from: start)
            utf8.removeAll(keepingCapacity: true)
            for scalar in scalars[start..<end] {
                UTF8.encode(scalar) { utf8.append($0) }
            }
            bytePairEncode(utf8, into: &ids)
            start = end
        }
    }

    /// Merges the bytes of one piece by rank, lowest first, and appends the resulting ids.
    ///
    /// Every pass merges all left-to-right occurrences of the best pair, which gives the same
    /// tokens as merging them one by one.
    private func bytePairEncode(_ bytes: [UInt8], into ids: inout [Int]) {
        var symbols = bytes.map { tables.byteTokens[Int($0)] }
        while symbols.count > 1 {
            var best: TokenizerTables.Merge?
            var bestIndex = 0
            for index in 0..<(symbols.count - 1) {
                if let merge = tables.merge(Self.mergeKey(symbols[index], symbols[index + 1])),
                   merge.rank < best?.rank ?? .max {
                    best = merge
                    bestIndex = index
                }
            }
            guard let best else { break }
            let left = symbols[bestIndex]
            let right = symbols[bestIndex + 1]
            var merged = Array(symbols[..<bestIndex])
            var index = bestIndex
            while index < symbols.count {
                if index + 1 < symbols.count, symbols[index] == left, symbols[index + 1] == right {
                    merged.append(best.id)
                    index += 2
                } else {
                    merged.append(symbols[index])
                    index += 1
                }
            }
            symbols = merged
        }
        ids.append(contentsOf: symbols.lazy.map { Int($0) })
    }

    /// The dictionary key of the pair (`left`, `right`).
    static func mergeKey(_ left: Int32, _ right: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
    }

    /// The character classes of the GPT-2 pre-tokenizer pattern.
    private enum CharacterClass {
        /// `\p{L}`.
        case letter
        /// `\p{N}`.
        case number
        /// `\s`, the Unicode White_Space property.
        case space
        /// Anything else: `[^\s\p{L}\p{N}]`.
        case other
    }

    /// The pattern class of `scalar`.
    private static func characterClass(_ scalar: Unicode.Scalar) -> CharacterClass {
        switch scalar.value {
        case 0x61...0x7A, 0x41...0x5A: return .letter
        case 0x30...0x39: return .number
        case 0x09...0x0D, 0x20: return .space
        case 0x21...0x7E: return .other
        default: break
        }
        let properties = scalar.properties
        if properties.isWhitespace { return .space }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return .letter
        case .decimalNumber, .letterNumber, .otherNumber:
            return .number
        default:
            return .other
        }
    }

    /// The end of the piece that starts at `start`, following the GPT-2 pattern
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
    private static func pieceEnd(_ scalars: ArraySlice<Unicode.Scalar>, from start: Int) -> Int {
        let end = scalars.endIndex
        let first = scalars[start]
        if first == "'", start + 1 < end {
            let second = scalars[start + 1]
            if second == "s" || second == "t" || second == "m" || second == "d" { return start + 2 }
            if start + 2 < end {
                let third = scalars[start + 2]
                if (second == "r" || second == "v") && third == "e" || second == "l" && third == "l" { return start + 3 }
            }
        }
        var index = start
        if first == " ", start + 1 < end, characterClass(scalars[start + 1]) != .space {
            index += 1
        }
        let kind = characterClass(scalars[index])
        if kind != .space {
            index += 1
            while index < end, characterClass(scalars[index]) == kind { index += 1 }
            return index
        }
        // White space: all of it at the end of the text or before more white space; otherwise
        // all but the last character, which then leads the next piece (a lone one stands alone).
        while index < end, characterClass(scalars[index]) == .space { index += 1 }
        return index == end || index - start == 1 ? index : index - 1
    }

    // MARK: - Byte table

    /// GPT-2's `bytes_to_unicode`: the character standing for each byte in token strings.
    ///
    /// Printable bytes 33–126, 161–172 and 174–255 stand for themselves; the other 68 bytes,
    /// in increasing order, get U+0100, U+0101, ….
    static let byteTable: [Unicode.Scalar] = {
        var next: UInt32 = 0x100
        return (0...255).map { (byte: UInt32) -> Unicode.Scalar in
            if (33...126).contains(byte) || (161...172).contains(byte) || (174...255).contains(byte) {
                return Unicode.Scalar(byte)!
            }
            defer { next += 1 }
            return Unicode.Scalar(next)!
        }
    }()

    /// The inverse of `byteTable`, indexed by scalar value; -1 where no byte maps to the scalar.
    private static let inverseByteTable: [Int16] = {
        var table = [Int16](repeating: -1, count: 0x144)
        for (byte, scalar) in byteTable.enumerated() {
            table[Int(scalar.value)] = Int16(byte)
        }
        return table
    }()

    // MARK: - Files

    /// The lines of `vocabulary.txt`, one token per line, without the final newline.
    private static func readVocabulary(_ url: URL) throws -> [String] {
        let data = try readFile(url)
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true {
            lines.removeLast()
        }
        guard !lines.isEmpty else {
            throw WhisperModelError.corruptModel(path: url.path, reason: "The vocabulary is empty.")
        }
        return lines.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The contents of `url`, with a `WhisperModelError` when it is missing or unreadable.
    static func readFile(_ url: URL) throws -> Data {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw WhisperModelError.missingFile(path: url.path)
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw WhisperModelError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
    }
}
