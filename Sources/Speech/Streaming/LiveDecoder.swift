import AuralWhisper
import Foundation

/// One decode of a live buffer: encodes its audio, decodes it with the committed words forced as the prefix and the
/// earlier text as previous text, and returns the words found after the committed ones that Whisper's checks and
/// the audio allow.
struct LiveDecoder {
    /// The engine's window decoder (shared by every session on the model).
    let decoder: WindowDecoder
    /// The decoding options and limits.
    let configuration: StreamingTranscription.Configuration
    /// The language decoded.
    let language: String
    /// Encodes each decode's audio.
    private let encoder: LiveEncoder
    /// `decoder` on at most `Configuration.decodeThreads` threads: what decodes each encoded window.
    private let windowDecoder: WindowDecoder
    /// The tokens of the last decode, whose new ones the next decode checks before it searches on.
    private let lastDecode = LastDecode()

    init(decoder: WindowDecoder, configuration: StreamingTranscription.Configuration, language: String) {
        self.decoder = decoder
        self.configuration = configuration
        self.language = language
        encoder = LiveEncoder(decoder: decoder, window: configuration.encoderWindow)
        let threads = min(configuration.decodeThreads, decoder.compute.effectiveThreads)
        windowDecoder = WindowDecoder(model: decoder.model, compute: ComputeContext(threads: threads))
    }

    /// What a decode found: the new words, and the text alternatives of beam search for them.
    struct Hypothesis {
        var words: [TimedWord] = []
        var alternatives: [String] = []
    }

    /// Decodes `samples` (the buffer's audio, perhaps with silence appended) as `buffer` places them. The words come
    /// back empty when the window is silent or loops (Whisper's no-speech and compression-ratio checks), or when
    /// they are more than the audio can hold (`fitsTheAudio`).
    func decode(_ samples: [Float], of buffer: LiveBuffer) throws -> Hypothesis {
        let window = try encoder.encode(
            samples, start: buffer.start, newSpeech: buffer.newAudioStart - buffer.startSeconds,
            extendable: samples.count == buffer.samples.count)
        let committedText = buffer.committedText
        var options = configuration.options
        options.wordTimestamps = true
        options.withoutTimestamps = true
        options.language = language
        let promptText = buffer.promptText
        let previousTokens = promptText.isEmpty ? [] : decoder.tokens(of: " " + promptText.trimmingCharacters(in: .whitespaces))
        let prefixTokens = committedText.isEmpty ? [] : decoder.tokens(of: committedText)
        var request = WindowRequest(
            language: language, previousTokens: previousTokens, prefixTokens: prefixTokens, alignsPrefix: true,
            timeOffset: buffer.startSeconds, lastSpeechTime: buffer.newAudioStart)
        request.draftTokens = lastDecode.draft(after: prefixTokens)
        // The committed words' probabilities are not read: only the new words' are.
        request.scoresPrefix = false
        let result = try windowDecoder.decode(window, request: request, options: options)
        lastDecode.tokens = []
        // A silent window, or a looping one (Whisper's hallucinations), says nothing new.
        if result.isNoSpeech { return Hypothesis() }
        if let threshold = options.compressionRatioThreshold, result.compressionRatio > threshold { return Hypothesis() }
        let words = result.segments.flatMap { $0.words ?? [] }.map(TimedWord.init)
        // Words placed after the last sound are Whisper's inventions ("You", "Thank you.") on trailing silence.
        let lastSound = LiveBuffer.lastSoundSample(in: samples[...], silenceRMS: configuration.silenceRMS) ?? 0
        let soundEnd = buffer.startSeconds + Double(lastSound) / Double(WhisperTime.sampleRate)
        // Punctuation standing alone after a space (" .", ". . .") is no word: the decoder writes it at the end of
        // speech, and once committed it would be forced and written again. Punctuation that closes the last
        // committed word (".") stays.
        let heard = Self.words(after: committedText, in: words).filter { word in
            word.start < soundEnd
                && (!word.text.contains(" ") || word.text.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) })
        }
        guard Self.fitsTheAudio(wordCount: heard.count, from: buffer.newAudioStart, to: soundEnd) else { return Hypothesis() }
        lastDecode.tokens = prefixTokens + result.tokens
        return Hypothesis(words: Self.withoutStackedEnd(heard), alternatives: result.alternatives.map { decoder.text(of: $0) })
    }

    /// The tokens of a session's last decode that said something (the forced prefix and the tokens after it).
    final class LastDecode {
        var tokens: [Int] = []

        /// The tokens after `prefix` where the last decode's tokens hold it (from their start, or further on after a
        /// trim moved committed words out of the prefix); none when they do not.
        func draft(after prefix: [Int]) -> [Int] {
            guard tokens.count > prefix.count else { return [] }
            for start in 0...(tokens.count - prefix.count) where tokens[start..<(start + prefix.count)].elementsEqual(prefix) {
                return Array(tokens[(start + prefix.count)...])
            }
            return []
        }
    }

    /// `words` without a stacked end: two or more words at its end that the alignment puts at one instant, with no
    /// time of their own, are not in the audio. Whisper writes them when it repeats its earlier text: at the end of
    /// a speech, a flush whose audio caught only the start of the next word wrote "Yes. Do you hear me?" all at
    /// 3.94 s, a second copy of the words before. A single word there (a word cut by the audio's end, or punctuation)
    /// stays, for the other rules to judge.
    static func withoutStackedEnd(_ words: [TimedWord]) -> [TimedWord] {
        guard let last = words.last else { return words }
        let instant = 0.02
        var stackStart = words.count
        while stackStart > 0, words[stackStart - 1].end - words[stackStart - 1].start < instant,
              last.end - words[stackStart - 1].start < instant {
            stackStart -= 1
        }
        let stackedWords = words[stackStart...].filter { $0.text.contains { $0.isLetter || $0.isNumber } }
        return stackedWords.count >= 2 ? Array(words[..<stackStart]) : words
    }

    /// Whether `wordCount` new words fit the audio between the committed words' end and the last sound: at most
    /// `maximumWordsPerSecond` per second, and 3 more (the alignment may place the committed words' end late). More
    /// is Whisper repeating the forced prefix, not new speech: in one CI run `aural listen` wrote the recording's
    /// last sentence (18 words, after an invented "you can see that there are") a second time after it was final.
    static func fitsTheAudio(wordCount: Int, from start: Double, to end: Double) -> Bool {
        Double(wordCount) <= StreamingTranscription.Configuration.maximumWordsPerSecond * max(0, end - start) + 3
    }

    /// The words of `words` that come after the first `prefix.count` characters of their joined text. A word that
    /// straddles the boundary (punctuation the aligner attached to a committed word) keeps its part after it, timed
    /// as an instant at the word's end.
    static func words(after prefix: String, in words: [TimedWord]) -> [TimedWord] {
        var remaining = prefix.count
        var result: [TimedWord] = []
        for word in words {
            if remaining <= 0 {
                result.append(word)
            } else if word.text.count <= remaining {
                remaining -= word.text.count
            } else {
                var tail = word
                tail.text = String(word.text.dropFirst(remaining))
                tail.start = word.end
                remaining = 0
                result.append(tail)
            }
        }
        return result.filter { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
