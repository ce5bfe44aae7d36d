import Foundation
import TestSupport
import Testing

@testable import AuralWhisper

/// The tokenizers of the installed models, loaded once for all tests.
private enum Tokenizers {
    /// tiny.en, English-only.
    static let tinyEn = Result { try Tokenizer(folder: Fixtures.modelFolder("tiny.en")) }
    /// base, multilingual.
    static let base = Result { try Tokenizer(folder: Fixtures.modelFolder("base")) }

    /// The tokenizer of the model `name` ("tiny.en" or "base").
    static func named(_ name: String) throws -> Tokenizer {
        try (name == "base" ? base : tinyEn).get()
    }
}

/// The special token ids a model's vocabulary must give.
struct SpecialTokens: Sendable, CustomTestStringConvertible {
    /// Model name.
    var model: String
    /// Lines in vocabulary.txt.
    var vocabularySize: Int
    /// Whether the model is multilingual.
    var isMultilingual: Bool
    /// `<|endoftext|>`.
    var eot: Int
    /// `<|startoftranscript|>`.
    var sot: Int
    /// `<|en|>`.
    var english: Int
    /// `<|translate|>`.
    var translate: Int
    /// `<|transcribe|>`.
    var transcribe: Int
    /// `<|startoflm|>`.
    var startOfLM: Int
    /// `<|startofprev|>`.
    var startOfPrev: Int
    /// `<|nocaptions|>`.
    var noSpeech: Int
    /// `<|notimestamps|>`.
    var noTimestamps: Int
    /// `<|0.00|>`.
    var timestampBegin: Int
    /// Test name.
    var testDescription: String { model }
}

/// A text and its ids with one model.
struct EncodingCase: Sendable, CustomTestStringConvertible {
    /// Model name.
    var model: String
    /// The text.
    var text: String
    /// Its ids.
    var ids: [Int]
    /// Test name.
    var testDescription: String { "\(model) \(text.debugDescription)" }
}

/// Ids and their text with one model.
struct DecodingCase: Sendable, CustomTestStringConvertible {
    /// Model name.
    var model: String
    /// The ids.
    var ids: [Int]
    /// Their text.
    var text: String
    /// Test name.
    var testDescription: String { "\(model) \(ids)" }
}

/// Tokens and the words they split into.
struct WordSplitCase: Sendable, CustomTestStringConvertible {
    /// Model name.
    var model: String
    /// Language code given to the split.
    var language: String
    /// The tokens, ending with eot.
    var tokens: [Int]
    /// The words' texts.
    var words: [String]
    /// The words' tokens.
    var wordTokens: [[Int]]
    /// Test name.
    var testDescription: String { "\(model) \(language)" }
}

@Suite("Tokenizer", .heavyWork)
struct TokenizerTests {
    @Test(
        "resolves the special tokens by name",
        arguments: [
            SpecialTokens(
                model: "tiny.en", vocabularySize: 51864, isMultilingual: false, eot: 50256, sot: 50257, english: 50258,
                translate: 50357, transcribe: 50358, startOfLM: 50359, startOfPrev: 50360, noSpeech: 50361,
                noTimestamps: 50362, timestampBegin: 50363),
            SpecialTokens(
                model: "base", vocabularySize: 51865, isMultilingual: true, eot: 50257, sot: 50258, english: 50259,
                translate: 50358, transcribe: 50359, startOfLM: 50360, startOfPrev: 50361, noSpeech: 50362,
                noTimestamps: 50363, timestampBegin: 50364),
        ])
    func specialTokens(_ expected: SpecialTokens) throws {
        let tokenizer = try Tokenizers.named(expected.model)
        #expect(tokenizer.vocabularySize == expected.vocabularySize)
        #expect(tokenizer.isMultilingual == expected.isMultilingual)
        #expect(tokenizer.eot == expected.eot)
        #expect(tokenizer.sot == expected.sot)
        #expect(tokenizer.languageToken(for: "en") == expected.english)
        #expect(tokenizer.translate == expected.translate)
        #expect(tokenizer.transcribe == expected.transcribe)
        #expect(tokenizer.startOfLM == expected.startOfLM)
        #expect(tokenizer.startOfPrev == expected.startOfPrev)
        #expect(tokenizer.noSpeech == expected.noSpeech)
        #expect(tokenizer.noTimestamps == expected.noTimestamps)
        #expect(tokenizer.timestampBegin == expected.timestampBegin)
    }

    @Test("lists the 99 language tokens between sot and translate", arguments: ["tiny.en", "base"])
    func languages(model: String) throws {
        let tokenizer = try Tokenizers.named(model)
        #expect(tokenizer.languageCodes.count == 99)
        #expect(tokenizer.languageCodes.prefix(3) == ["en", "zh", "de"])
        #expect(tokenizer.languageCodes.last == "su")
        #expect(tokenizer.languageToken(for: "zh") == tokenizer.sot + 2)
        #expect(tokenizer.languageToken(for: "su") == tokenizer.translate - 1)
        #expect(tokenizer.languageToken(for: "xx") == nil)
        #expect(tokenizer.languageCode(forToken: tokenizer.sot + 1) == "en")
        #expect(tokenizer.languageCode(forToken: tokenizer.translate - 1) == "su")
        #expect(tokenizer.languageCode(forToken: tokenizer.sot) == nil)
        #expect(tokenizer.languageCode(forToken: tokenizer.translate) == nil)
    }

    @Test(
        "decodes the reference transcript",
        arguments: [
            DecodingCase(
                model: "tiny.en", ids: [843, 523, 616, 5891, 3399, 1265, 407, 644, 534, 1499, 460, 466, 329, 345],
                text: " And so my fellow Americans ask not what your country can do for you"),
            DecodingCase(
                model: "base", ids: [400, 370, 452, 7177, 6280, 1029, 406, 437, 428, 1941, 393, 360, 337, 291, 11],
                text: " And so my fellow Americans ask not what your country can do for you,"),
        ])
    func decodesReference(_ reference: DecodingCase) throws {
        let tokenizer = try Tokenizers.named(reference.model)
        #expect(tokenizer.decode(reference.ids) == reference.text)
        let withSpecials = [tokenizer.sot, tokenizer.noTimestamps] + reference.ids + [tokenizer.eot, tokenizer.timestampBegin]
        #expect(tokenizer.decode(withSpecials) == reference.text)
    }

    @Test("decodes a character cut between tokens as U+FFFD", arguments: Golden.partialDecodings)
    func decodesPartialCharacters(_ golden: DecodingCase) throws {
        #expect(try Tokenizers.named(golden.model).decode(golden.ids) == golden.text)
    }

    @Test("encodes text as Hugging Face tokenizers does", arguments: Golden.encodings)
    func encodes(_ golden: EncodingCase) throws {
        #expect(try Tokenizers.named(golden.model).encode(golden.text) == golden.ids)
    }

    @Test("decoding an encoding gives the text back", arguments: Golden.encodings.filter { !$0.text.contains("<|") })
    func roundTrips(_ golden: EncodingCase) throws {
        let tokenizer = try Tokenizers.named(golden.model)
        #expect(tokenizer.decode(tokenizer.encode(golden.text)) == golden.text)
    }

    @Test("encodes a long prompt piece by piece", arguments: ["tiny.en", "base"])
    func encodesLongPrompt(model: String) throws {
        let tokenizer = try Tokenizers.named(model)
        let piece = tokenizer.encode(" Ask not what your country can do for you.")
        let ids = tokenizer.encode(String(repeating: " Ask not what your country can do for you.", count: 500))
        #expect(ids == Array([[Int]](repeating: piece, count: 500).joined()))
    }

    @Test("writes timestamp tokens as <|s.ss|> and leaves other special tokens out", arguments: ["tiny.en", "base"])
    func decodesTimestamps(model: String) throws {
        let tokenizer = try Tokenizers.named(model)
        let begin = tokenizer.timestampBegin
        let english = tokenizer.isMultilingual ? [tokenizer.languageToken(for: "en")!, tokenizer.transcribe] : []
        let ids = [tokenizer.sot] + english + [begin] + tokenizer.encode(" Hello world.") + [begin + 57, begin + 57]
            + tokenizer.encode(" 😀 ok") + [begin + 1500, tokenizer.eot]
        #expect(tokenizer.decodeWithTimestamps(ids) == "<|0.00|> Hello world.<|1.14|><|1.14|> 😀 ok<|30.00|>")
        #expect(tokenizer.decode(ids) == " Hello world. 😀 ok")
    }

    @Test("splits tokens into words as faster-whisper does", arguments: Golden.wordSplits)
    func splitsWords(_ golden: WordSplitCase) throws {
        let tokenizer = try Tokenizers.named(golden.model)
        let words = tokenizer.splitToWordTokens(golden.tokens, language: golden.language)
        #expect(words.map(\.word) == golden.words)
        #expect(words.map(\.tokens) == golden.wordTokens)
    }

    @Test("reads merges written as two-element arrays")
    func readsArrayMerges() throws {
        let source = Fixtures.modelFolder("tiny.en")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokenizer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("vocabulary.txt"), to: folder.appendingPathComponent("vocabulary.txt"))
        let data = try Data(contentsOf: source.appendingPathComponent("tokenizer.json"))
        var json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var model = try #require(json["model"] as? [String: Any])
        let merges = try #require(model["merges"] as? [String])
        model["merges"] = merges.map { $0.split(separator: " ").map(String.init) }
        json["model"] = model
        try JSONSerialization.data(withJSONObject: json).write(to: folder.appendingPathComponent("tokenizer.json"))

        let tokenizer = try Tokenizer(folder: folder)
        for golden in Golden.encodings where golden.model == "tiny.en" {
            #expect(tokenizer.encode(golden.text) == golden.ids)
        }
    }

    /// A folder with `source`'s vocabulary and tokenizer files, removed by the caller.
    private static func tokenizerFolder(from source: URL) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokenizer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["vocabulary.txt", "tokenizer.json"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        return folder
    }

    @Test("the first load keeps tokenizer.json's tables in a binary copy, and a later load encodes the same from it alone")
    func binaryCopy() throws {
        let folder = try Self.tokenizerFolder(from: Fixtures.modelFolder("tiny.en"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(TokenizerTables.cacheName)
        let parsed = try Tokenizer(folder: folder)
        #expect(FileManager.default.fileExists(atPath: copy.path))
        // Make tokenizer.json unreadable as JSON but keep its size and modification time: only the copy can serve.
        let json = folder.appendingPathComponent("tokenizer.json")
        var status = stat()
        #expect(stat(json.path, &status) == 0)
        try Data(repeating: UInt8(ascii: "x"), count: Int(status.st_size)).write(to: json)
        var times = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, json.path, &times, 0) == 0)
        let fromCopy = try Tokenizer(folder: folder)
        for golden in Golden.encodings where golden.model == "tiny.en" {
            #expect(parsed.encode(golden.text) == golden.ids)
            #expect(fromCopy.encode(golden.text) == golden.ids)
        }
        // Once tokenizer.json changes (another modification time), the copy no longer counts: the garbage is read.
        times = [status.st_atim, timespec(tv_sec: status.st_mtim.tv_sec + 1, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, json.path, &times, 0) == 0)
        #expect(throws: WhisperModelError.self) { try Tokenizer(folder: folder) }
    }

    @Test("a damaged binary copy is not used: the load parses tokenizer.json and writes the copy again")
    func damagedCopy() throws {
        let folder = try Self.tokenizerFolder(from: Fixtures.modelFolder("tiny.en"))
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(TokenizerTables.cacheName)
        _ = try Tokenizer(folder: folder)
        let good = try Data(contentsOf: copy)
        for damage in [Data(good.prefix(good.count / 2)), Data(), { var bytes = good; bytes[bytes.count / 2] ^= 0x55; return bytes }()] {
            try damage.write(to: copy)
            let tokenizer = try Tokenizer(folder: folder)
            for golden in Golden.encodings where golden.model == "tiny.en" {
                #expect(tokenizer.encode(golden.text) == golden.ids)
            }
            #expect(try Data(contentsOf: copy) == good)
        }
    }

    @Test("names the missing file", arguments: ["vocabulary.txt", "tokenizer.json"])
    func missingFile(name: String) throws {
        let source = Fixtures.modelFolder("tiny.en")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokenizer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in ["vocabulary.txt", "tokenizer.json"] where file != name {
            try FileManager.default.copyItem(at: source.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        #expect(throws: WhisperModelError.missingFile(path: folder.appendingPathComponent(name).path)) {
            try Tokenizer(folder: folder)
        }
    }
}

/// Reference values computed with faster-whisper 1.2.1 and `tokenizers` 0.23.3 on the installed models.
private enum Golden {
    /// Texts and the ids `tokenizers` 0.23.3 gives them (`encode(text, add_special_tokens=False)`).
    static let encodings: [EncodingCase] = [
        EncodingCase(model: "tiny.en", text: " And so my fellow Americans ask not what your country can do for you", ids: [843, 523, 616, 5891, 3399, 1265, 407, 644, 534, 1499, 460, 466, 329, 345]),
        EncodingCase(model: "tiny.en", text: "Hello, world! It's a test; isn't it? We'll see—they're 'quoted'.", ids: [15496, 11, 995, 0, 632, 338, 257, 1332, 26, 2125, 470, 340, 30, 775, 1183, 766, 960, 9930, 821, 705, 421, 5191, 4458]),
        EncodingCase(model: "tiny.en", text: "The year 2024 had 365 days, and 3.14159 is pi. 1,000,000!", ids: [464, 614, 48609, 550, 21268, 1528, 11, 290, 513, 13, 1415, 19707, 318, 31028, 13, 352, 11, 830, 11, 830, 0]),
        EncodingCase(model: "tiny.en", text: "multiple   spaces\tand\ttabs\n\nnew lines  \n end  ", ids: [48101, 220, 220, 9029, 197, 392, 197, 8658, 82, 198, 198, 3605, 3951, 220, 220, 198, 886, 220, 220]),
        EncodingCase(model: "tiny.en", text: "Grüße aus München: Äpfel, Öl und Übermaß.", ids: [8642, 9116, 39683, 68, 257, 385, 40790, 77, 6607, 25, 6184, 226, 79, 69, 417, 11, 43307, 75, 3318, 49363, 527, 2611, 39683, 13]),
        EncodingCase(model: "tiny.en", text: "我们今天去北京，好吗？", ids: [22755, 239, 20015, 105, 20015, 232, 25465, 43889, 119, 44293, 245, 12859, 105, 171, 120, 234, 25001, 121, 28938, 245, 171, 120, 253]),
        EncodingCase(model: "tiny.en", text: "Emoji time 😀🎉👍\u{1F3FD} and ❤\u{FE0F}!", ids: [36, 5908, 7285, 640, 30325, 222, 8582, 236, 231, 41840, 235, 8582, 237, 121, 290, 43074, 97, 37929, 0]),
        EncodingCase(model: "tiny.en", text: "Привет, как дела? Всё хорошо.", ids: [140, 253, 21169, 18849, 38857, 16843, 20375, 11, 12466, 118, 16142, 31583, 12466, 112, 16843, 30143, 16142, 30, 12466, 240, 21727, 141, 239, 220, 141, 227, 15166, 21169, 15166, 141, 230, 15166, 13]),
        EncodingCase(model: "tiny.en", text: "CAPS'S I'M YOU'RE it's we've they'd she'll I'd ''s x's", ids: [33177, 50, 6, 50, 314, 6, 44, 7013, 6, 2200, 340, 338, 356, 1053, 484, 1549, 673, 1183, 314, 1549, 10148, 82, 2124, 338]),
        EncodingCase(model: "tiny.en", text: "  leading and trailing spaces  ", ids: [220, 3756, 290, 25462, 9029, 220, 220]),
        EncodingCase(model: "tiny.en", text: "日本語のテキストです。", ids: [33768, 98, 17312, 105, 45739, 252, 5641, 24336, 25084, 43302, 30640, 33623, 16764]),
        EncodingCase(model: "tiny.en", text: "a\u{A0}b\u{3000}c\u{2028}d \u{A0}e", ids: [64, 1849, 65, 5099, 222, 66, 447, 101, 67, 220, 1849, 68]),
        EncodingCase(model: "tiny.en", text: "x<|endoftext|>y <|en|>", ids: [87, 50256, 88, 220, 50258]),
        EncodingCase(model: "tiny.en", text: "supercalifragilisticexpialidocious ١٢٣ ℝ² ½ Ⅻ e\u{301}té", ids: [16668, 9948, 361, 22562, 346, 396, 501, 42372, 498, 312, 32346, 18923, 94, 149, 95, 149, 96, 2343, 226, 251, 31185, 25208, 2343, 227, 104, 304, 136, 223, 83, 2634]),
        EncodingCase(model: "tiny.en", text: "", ids: []),
        EncodingCase(model: "tiny.en", text: " ", ids: [220]),
        EncodingCase(model: "tiny.en", text: "\n", ids: [198]),
        EncodingCase(model: "base", text: " And so my fellow Americans ask not what your country can do for you", ids: [400, 370, 452, 7177, 6280, 1029, 406, 437, 428, 1941, 393, 360, 337, 291]),
        EncodingCase(model: "base", text: "Hello, world! It's a test; isn't it? We'll see—they're 'quoted'.", ids: [15947, 11, 1002, 0, 467, 311, 257, 220, 31636, 26, 1943, 380, 309, 30, 492, 603, 536, 2958, 13162, 434, 922, 358, 23325, 5004]),
        EncodingCase(model: "base", text: "The year 2024 had 365 days, and 3.14159 is pi. 1,000,000!", ids: [2278, 1064, 45237, 632, 22046, 1708, 11, 293, 805, 13, 7271, 5211, 24, 307, 3895, 13, 502, 11, 1360, 11, 1360, 0]),
        EncodingCase(model: "base", text: "multiple   spaces\tand\ttabs\n\nnew lines  \n end  ", ids: [76, 723, 647, 306, 220, 220, 7673, 197, 474, 197, 83, 17243, 198, 198, 7686, 3876, 220, 220, 198, 917, 220, 220]),
        EncodingCase(model: "base", text: "Grüße aus München: Äpfel, Öl und Übermaß.", ids: [20038, 774, 11451, 3437, 35840, 2470, 25, 13700, 25302, 338, 11, 9158, 75, 674, 18086, 1696, 2536, 13]),
        EncodingCase(model: "base", text: "我们今天去北京，好吗？", ids: [15003, 12074, 6734, 26668, 31375, 171, 120, 234, 2131, 14769, 171, 120, 253]),
        EncodingCase(model: "base", text: "Emoji time 😀🎉👍\u{1F3FD} and ❤\u{FE0F}!", ids: [36, 3280, 4013, 220, 3766, 20732, 222, 28864, 231, 31017, 235, 4222, 237, 121, 293, 672, 35156, 32306, 0]),
        EncodingCase(model: "base", text: "Привет, как дела? Всё хорошо.", ids: [43971, 31259, 11, 3014, 46157, 30, 29661, 16977, 13]),
        EncodingCase(model: "base", text: "CAPS'S I'M YOU'RE it's we've they'd she'll I'd ''s x's", ids: [34, 4715, 50, 6, 50, 286, 6, 44, 7928, 6, 3850, 309, 311, 321, 600, 220, 13162, 1116, 750, 603, 286, 1116, 12119, 82, 2031, 311]),
        EncodingCase(model: "base", text: "  leading and trailing spaces  ", ids: [220, 5775, 293, 220, 17227, 4883, 7673, 220, 220]),
        EncodingCase(model: "base", text: "日本語のテキストです。", ids: [27311, 31348, 2972, 22985, 15535, 40498, 4767, 1543]),
        EncodingCase(model: "base", text: "a\u{A0}b\u{3000}c\u{2028}d \u{A0}e", ids: [64, 126, 254, 65, 756, 222, 66, 913, 101, 67, 220, 126, 254, 68]),
        EncodingCase(model: "base", text: "x<|endoftext|>y <|en|>", ids: [87, 50257, 88, 220, 50259]),
        EncodingCase(model: "base", text: "supercalifragilisticexpialidocious ١٢٣ ℝ² ½ Ⅻ e\u{301}té", ids: [48172, 9895, 351, 3731, 388, 468, 573, 87, 79, 831, 2925, 4139, 1447, 94, 149, 95, 149, 96, 672, 226, 251, 27643, 32653, 672, 227, 104, 308, 32797, 83, 526]),
        EncodingCase(model: "base", text: "", ids: []),
        EncodingCase(model: "base", text: " ", ids: [220]),
        EncodingCase(model: "base", text: "\n", ids: [198]),
    ]

    /// Prefixes of an emoji-rich text and their decoding by faster-whisper, U+FFFD for cut characters.
    static let partialDecodings: [DecodingCase] = [
        DecodingCase(model: "tiny.en", ids: [], text: ""),
        DecodingCase(model: "tiny.en", ids: [30325], text: " \u{FFFD}"),
        DecodingCase(model: "tiny.en", ids: [30325, 222], text: " 😀"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582], text: " 😀\u{FFFD}"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582, 236], text: " 😀\u{FFFD}"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582, 236, 231], text: " 😀🎉"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582, 236, 231, 6184], text: " 😀🎉 \u{FFFD}"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582, 236, 231, 6184, 120], text: " 😀🎉 ü"),
        DecodingCase(model: "tiny.en", ids: [30325, 222, 8582, 236, 231, 6184, 120, 40792], text: " 😀🎉 ü中"),
        DecodingCase(model: "tiny.en", ids: [222], text: "\u{FFFD}"),
        DecodingCase(model: "tiny.en", ids: [8582, 222], text: "\u{FFFD}"),
        DecodingCase(model: "base", ids: [], text: ""),
        DecodingCase(model: "base", ids: [20732], text: " \u{FFFD}"),
        DecodingCase(model: "base", ids: [20732, 222], text: " 😀"),
        DecodingCase(model: "base", ids: [20732, 222, 28864], text: " 😀\u{FFFD}"),
        DecodingCase(model: "base", ids: [20732, 222, 28864, 231], text: " 😀🎉"),
        DecodingCase(model: "base", ids: [20732, 222, 28864, 231, 3304], text: " 😀🎉 ü"),
        DecodingCase(model: "base", ids: [20732, 222, 28864, 231, 3304, 5975], text: " 😀🎉 ü中"),
        DecodingCase(model: "base", ids: [222], text: "\u{FFFD}"),
        DecodingCase(model: "base", ids: [28864, 222], text: "🎀"),
    ]

    /// Token lists split into words by faster-whisper 1.2.1 `split_to_word_tokens`.
    static let wordSplits: [WordSplitCase] = [
        WordSplitCase(
            model: "tiny.en", language: "en",
            tokens: [843, 523, 616, 5891, 3399, 11, 1265, 407, 644, 534, 1499, 460, 466, 329, 345, 986, 366, 25214, 1, 644, 345, 460, 466, 1377, 357, 1640, 8, 534, 1499, 0, 50256],
            words: [" And", " so", " my", " fellow", " Americans", ",", " ask", " not", " what", " your", " country", " can", " do", " for", " you...", " \"Ask", "\"", " what", " you", " can", " do", " --", " (for", ")", " your", " country", "!", ""],
            wordTokens: [[843], [523], [616], [5891], [3399], [11], [1265], [407], [644], [534], [1499], [460], [466], [329], [345, 986], [366, 25214], [1], [644], [345], [460], [466], [1377], [357, 1640], [8], [534], [1499], [0], [50256]]),
        WordSplitCase(
            model: "base", language: "en",
            tokens: [400, 370, 452, 7177, 6280, 11, 1029, 406, 437, 428, 1941, 393, 360, 337, 291, 485, 503, 47802, 1, 437, 291, 393, 360, 1350, 522, 2994, 8, 428, 1941, 0, 50257],
            words: [" And", " so", " my", " fellow", " Americans", ",", " ask", " not", " what", " your", " country", " can", " do", " for", " you...", " \"Ask", "\"", " what", " you", " can", " do", " --", " (for", ")", " your", " country", "!", ""],
            wordTokens: [[400], [370], [452], [7177], [6280], [11], [1029], [406], [437], [428], [1941], [393], [360], [337], [291, 485], [503, 47802], [1], [437], [291], [393], [360], [1350], [522, 2994], [8], [428], [1941], [0], [50257]]),
        WordSplitCase(
            model: "base", language: "zh",
            tokens: [8624, 9497, 12074, 6734, 26668, 31375, 171, 120, 234, 2131, 14769, 171, 120, 253, 13125, 222, 2425, 24486, 50257],
            words: [" 我", "们", "今天", "去", "北", "京", "，", "好", "吗", "？", "😀", " Hello", "世界", ""],
            wordTokens: [[8624], [9497], [12074], [6734], [26668], [31375], [171, 120, 234], [2131], [14769], [171, 120, 253], [13125, 222], [2425], [24486], [50257]]),
        WordSplitCase(
            model: "base", language: "ja",
            tokens: [220, 27311, 31348, 2972, 22985, 15535, 40498, 4767, 1543, 6948, 113, 17174, 22381, 28864, 231, 4801, 50257],
            words: [" ", "日本", "語", "の", "テ", "キ", "スト", "です", "。", "絵", "文", "字", "🎉", "も", ""],
            wordTokens: [[220], [27311], [31348], [2972], [22985], [15535], [40498], [4767], [1543], [6948, 113], [17174], [22381], [28864, 231], [4801], [50257]]),
    ]
}
