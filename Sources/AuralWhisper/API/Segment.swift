/// One word of a segment with its timing and probability, from the cross-attention alignment.
public struct WordTiming: Sendable, Codable, Equatable {
    /// The word as it appears in the text, with its leading space and attached punctuation (" country.").
    public var word: String
    /// Start of the word in seconds from the beginning of the audio.
    public var start: Double
    /// End of the word in seconds from the beginning of the audio.
    public var end: Double
    /// Mean probability of the word's tokens, 0...1.
    public var probability: Double

    public init(word: String, start: Double, end: Double, probability: Double) {
        self.word = word
        self.start = start
        self.end = end
        self.probability = probability
    }
}

/// A transcribed stretch of audio bounded by two timestamp tokens.
public struct Segment: Sendable, Codable, Equatable {
    /// Index of the segment in the transcription, from 0.
    public var id: Int
    /// Position in the mel frames (100 per second) of the window the segment was decoded from.
    public var seek: Int
    /// Start in seconds from the beginning of the audio.
    public var start: Double
    /// End in seconds from the beginning of the audio.
    public var end: Double
    /// The text, with Whisper's leading space.
    public var text: String
    /// The text tokens and the timestamp tokens that bound them.
    public var tokens: [Int]
    /// The sampling temperature of the decode that was kept (0 for greedy or beam search).
    public var temperature: Double
    /// Mean log probability of the window's tokens.
    public var avgLogprob: Double
    /// Text length over its zlib-compressed length; above 2.4 suggests repetition.
    public var compressionRatio: Double
    /// Probability of the no-speech token at the start of the window.
    public var noSpeechProb: Double
    /// Words with timings, when word timestamps were asked for; otherwise nil.
    public var words: [WordTiming]?

    public init(
        id: Int, seek: Int, start: Double, end: Double, text: String, tokens: [Int], temperature: Double,
        avgLogprob: Double, compressionRatio: Double, noSpeechProb: Double, words: [WordTiming]?
    ) {
        self.id = id
        self.seek = seek
        self.start = start
        self.end = end
        self.text = text
        self.tokens = tokens
        self.temperature = temperature
        self.avgLogprob = avgLogprob
        self.compressionRatio = compressionRatio
        self.noSpeechProb = noSpeechProb
        self.words = words
    }
}

/// What the engine knows about an audio input once it has looked at it.
public struct TranscriptionInfo: Sendable, Codable, Equatable {
    /// The language code used for decoding ("en", "de", …).
    public var language: String
    /// Probability of that language from detection; 1 when it was given.
    public var languageProbability: Double
    /// Probabilities of every language, highest first; empty when the language was given or the model is English-only.
    public var allLanguageProbabilities: [LanguageProbability]
    /// Duration of the audio in seconds.
    public var duration: Double

    public init(language: String, languageProbability: Double, allLanguageProbabilities: [LanguageProbability], duration: Double) {
        self.language = language
        self.languageProbability = languageProbability
        self.allLanguageProbabilities = allLanguageProbabilities
        self.duration = duration
    }
}

/// A language code and its detected probability.
public struct LanguageProbability: Sendable, Codable, Hashable {
    /// Whisper's language code ("en", "zh", …).
    public var language: String
    /// Probability, 0...1.
    public var probability: Double

    public init(language: String, probability: Double) {
        self.language = language
        self.probability = probability
    }
}
