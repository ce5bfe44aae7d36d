import Foundation

/// Whisper's 99 language codes, in the order of OpenAI's `whisper/tokenizer.py` (the order of the language
/// tokens in the vocabulary).
let whisperLanguageCodes: [String] = [
    "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id", "hi", "fi", "vi",
    "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk",
    "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
    "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo",
    "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su",
]

extension ModelCatalog {
    /// Locale language codes that Whisper spells differently, or that Whisper folds into another language.
    private static let languageAliases: [String: String] = [
        "nb": "no",  // Norwegian Bokmål: Whisper's "no"
        "iw": "he",  // Hebrew, old ISO 639 code
        "in": "id",  // Indonesian, old code
        "ji": "yi",  // Yiddish, old code
        "jv": "jw",  // Javanese: Whisper writes "jw"
        "fil": "tl",  // Filipino: Whisper's Tagalog
        "yue": "zh",  // Cantonese: the 99-language models (before large-v3) transcribe it as Chinese
        "cmn": "zh",  // Mandarin
        "zho": "zh", "eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "spa": "es",
    ]

    /// The Whisper language code for `locale`, whether or not a model of this catalog supports it.
    ///
    /// Reads the language part of the identifier and ignores script, region and keywords: `en_GB`, `en-US` and
    /// `en_US@rg=gbzzzz` → `en`; `pt_BR` → `pt`; `zh-Hant-TW`, `zh_CN`, `yue_HK` → `zh`; `nb_NO` → `no`.
    package static func whisperLanguage(for locale: Locale) -> String? {
        let identifier = locale.identifier.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        guard let first = identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).first else { return nil }
        let language = first.lowercased()
        guard language.count >= 2, language.count <= 3, language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return languageAliases[language] ?? language
    }

    /// The locale of this catalog's language that is equivalent to `locale`, or nil when no model transcribes it;
    /// like `SpeechTranscriber.supportedLocale(equivalentTo:)`.
    ///
    /// The result is the bare language (`Locale(identifier: "en")` for `en_GB`), since Whisper models know
    /// languages, not regions.
    public func supportedLocale(equivalentTo locale: Locale) -> Locale? {
        guard let language = Self.whisperLanguage(for: locale), languages.contains(language) else { return nil }
        return Locale(identifier: language)
    }

    /// The models that transcribe `locale`'s language, smallest first; empty when none does.
    public func models(supporting locale: Locale) -> [ModelDescriptor] {
        guard let language = Self.whisperLanguage(for: locale) else { return [] }
        return models.filter { $0.languages.contains(language) }
    }
}
