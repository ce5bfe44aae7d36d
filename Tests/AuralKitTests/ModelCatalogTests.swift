@testable import AuralKit
@testable import Speech
import Foundation
import TestSupport
import Testing

@Suite("ModelCatalog")
struct ModelCatalogTests {
    @Test("holds every Systran conversion with pinned files, sizes and model.bin checksums")
    func entries() throws {
        let catalog = ModelCatalog.standard
        let names = catalog.models.map(\.name)
        #expect(names == [
            "tiny.en", "tiny", "base.en", "base", "small.en", "small", "medium.en", "medium", "large-v2", "large-v3",
            "distil-large-v3", "large-v3-turbo",
        ])
        for model in catalog.models {
            #expect(model.revision.count == 40, "\(model.name) is pinned to a commit")
            let files = Set(model.files.map(\.name))
            #expect(files.isSuperset(of: ["config.json", "model.bin", "tokenizer.json"]), "\(model.name)")
            #expect(files.contains("vocabulary.txt") || files.contains("vocabulary.json"), "\(model.name)")
            #expect(model.downloadSize != nil, "\(model.name) has every size")
            let weights = try #require(model.files.first { $0.name == "model.bin" })
            #expect(weights.sha256?.count == 64, "\(model.name)")
            #expect(model.isEnglishOnly == (model.name.hasSuffix(".en") || model.name.hasPrefix("distil")))
            if !model.isEnglishOnly { #expect(model.languages.count == 99) }
        }
        #expect(Set(whisperLanguageCodes).count == 99)
        for use in ModelUse.allCases { #expect(catalog.defaultModel(for: use) != nil, "\(use)") }
    }

    @Test("tiny.en and base match the setup's files byte for byte (size and SHA-256)", .heavyWork, arguments: ["tiny.en", "base"])
    func matchesSetup(_ name: String) throws {
        let descriptor = try #require(ModelCatalog.standard.model(named: name))
        let folder = Fixtures.modelsDirectory.appendingPathComponent(name)
        for file in descriptor.files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file.name))
            #expect(Int64(data.count) == file.size, "\(file.name)")
            var hasher = SHA256()
            data.withUnsafeBytes { hasher.update(raw: $0) }
            #expect(hasher.finalize() == file.sha256, "\(file.name)")
        }
    }

    /// Locale → Whisper language, as `SpeechTranscriber.supportedLocale(equivalentTo:)` would resolve it.
    static let locales: [(String, String)] = [
        ("en_GB", "en"), ("en-US", "en"), ("en_US@rg=gbzzzz", "en"), ("pt_BR", "pt"), ("zh-Hant-TW", "zh"), ("zh_CN", "zh"),
        ("yue_HK", "zh"), ("nb_NO", "no"), ("de", "de"), ("fr_CA", "fr"), ("he_IL", "he"), ("iw_IL", "he"), ("jv_ID", "jw"),
        ("haw_US", "haw"),
    ]

    @Test("resolves a locale to its model's language", arguments: locales)
    func resolvesLocale(_ identifier: String, _ language: String) {
        let resolved = ModelCatalog.standard.supportedLocale(equivalentTo: Locale(identifier: identifier))
        #expect(resolved?.identifier == language)
    }

    @Test("refuses a language no model knows", arguments: ["tlh", "xx_YY", "", "qq_US"])
    func unsupportedLocale(_ identifier: String) async {
        #expect(ModelCatalog.standard.supportedLocale(equivalentTo: Locale(identifier: identifier)) == nil)
        let manager = ModelManager(cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("none"))
        await #expect(throws: SpeechModelError.unsupportedLocale(Locale(identifier: identifier))) {
            try await manager.model(for: Locale(identifier: identifier))
        }
    }

    @Test("an English locale resolves to the smallest installed English model; German to base")
    func resolvesToInstalled() async throws {
        let manager = ModelManager(cacheDirectory: Fixtures.modelsDirectory)
        #expect(try await manager.model(for: Locale(identifier: "en_GB")).name == "tiny.en")
        #expect(try await manager.model(for: Locale(identifier: "de_AT")).name == "base")
        let empty = ModelManager(cacheDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID())"))
        #expect(try await empty.model(for: Locale(identifier: "en_GB")).name == "tiny.en")
        #expect(try await empty.model(for: Locale(identifier: "ja_JP")).name == "small")
    }
}

@Suite("SHA256")
struct SHA256Tests {
    @Test("matches the FIPS 180-4 examples")
    func vectors() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("gives the same digest however the input is split into chunks")
    func chunking() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.hex(of: bytes)
        for size in [1, 3, 63, 64, 65, 1000] {
            var hasher = SHA256()
            for start in stride(from: 0, to: bytes.count, by: size) {
                bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { hasher.update(raw: $0) }
            }
            #expect(hasher.finalize() == whole, "chunks of \(size)")
        }
    }
}

@Suite("vocabulary.json")
struct VocabularyConversionTests {
    @Test("the large-v3 family's vocabulary.json becomes the vocabulary.txt the engine reads, one token per line")
    func converts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vocab-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"["!", "\"", "Ġthe", "<|endoftext|>", "Ã©"]"#.utf8).write(to: folder.appendingPathComponent("vocabulary.json"))
        try ModelManager.writeVocabularyText(in: folder)
        let text = try String(contentsOf: folder.appendingPathComponent("vocabulary.txt"), encoding: .utf8)
        #expect(text == "!\n\"\nĠthe\n<|endoftext|>\nÃ©\n", "one line per token, ending in a newline as CTranslate2 writes it")
    }
}
