import AuralWhisper
import Foundation

/// Live transcription of a growing stream of 16 kHz mono audio: the streaming policy over `WindowDecoder`.
///
/// Each `update` re-decodes the audio buffer (everything since the last trim, at most `maxBufferSeconds`) in one
/// window. The words committed so far that still lie in the buffer are forced as the decode's prefix, and the words
/// committed before the buffer condition it as previous text, so a decode only has to find what comes next. The new
/// words go through `LocalAgreement`: those two consecutive decodes agree on become final (three for an unlikely word,
/// `Configuration.thirdAgreementMinimumConfidence`, and for a less unlikely one that the first of the two heard at its
/// audio's end, `Configuration.barelyHeardMinimumConfidence`); the rest are volatile and are replaced
/// by the next update. A flush (`update(final: true)`) commits every word of one last decode, so audio
/// received before a stop, a pause or the end of a file is never lost; only unlikely words at a decode's end
/// (`Configuration.trailingWordMinimumConfidence`, `placelessWordSeconds`: Whisper's inventions on noise) never
/// become final. A flush never takes back what the last update showed (`flushWords`).
///
/// Not thread-safe: one owner calls `append` and `update` (the session's inference thread, or a replay harness).
final class StreamingTranscription {
    /// How a live decode runs.
    struct Configuration: Sendable {
        /// Decoding options of every update (language, beam size, thresholds); word timestamps and the timestamp-free
        /// prompt are forced on.
        var options: DecodingOptions
        /// Initial prompt from contextual strings, before any committed text.
        var contextPrompt: String?
        /// Audio kept for re-decoding before the buffer is trimmed at a committed word, in seconds.
        var maxBufferSeconds: Double = defaultMaxBufferSeconds
        /// The default of `maxBufferSeconds`.
        static let defaultMaxBufferSeconds = 15.0
        /// A trim keeps at least this many seconds of audio before the received end, committed words included: it
        /// cuts at the end of a committed sentence that ends between this and twice this before the end, else of the
        /// latest committed word that ends this early (when none does, or with 0, at the committed word before the
        /// last). The next decodes then hear the committed words as audio, not only as forced text: the cut at the
        /// word before the last left ~1 s of audio, and two decodes of it agreed on "Ensure" for "In short".
        var trimKeepSeconds: Double = defaultTrimKeepSeconds
        /// The default of `trimKeepSeconds`.
        static let defaultTrimKeepSeconds = 6.0
        /// Seconds of audio before the first decode of a buffer (Whisper is poor on less than a second).
        var minimumDecodeSeconds: Double = 1.0
        /// Committed text before the buffer that conditions the decoder, in characters (whisper_streaming keeps 200).
        var promptCharacters: Int = 200
        /// A buffer quieter than this RMS in every 100 ms frame is not decoded.
        var silenceRMS: Double = 0.003
        /// New words a decode may place in each second of audio after the committed words (see `fitsTheAudio`).
        static let maximumWordsPerSecond = 6.0
        /// Agreed words that end less than this many seconds before the received audio's end stay volatile: a word
        /// heard without right context is the likeliest to change.
        var holdbackSeconds: Double = defaultHoldbackSeconds
        /// The default of `holdbackSeconds`.
        static let defaultHoldbackSeconds = 0.0
        /// Words at the end of a decode with a lower probability stay volatile, and a flush drops them: on the noise
        /// after speech Whisper invents words ("So,", "You", "And only.") that two decodes may agree on, with
        /// probabilities near 0. 0.15 is faster-whisper's threshold for an anomalous word
        /// (`hallucination_silence_threshold`).
        var trailingWordMinimumConfidence: Double = 0.15
        /// A word at the end of a decode that the alignment gives less than this duration must have a probability of
        /// at least `placelessWordMinimumConfidence`: the invented words on a breath after speech came out with no
        /// duration at all ("can", p 0.36), while a real last word with a cramped time ("Only.", 20 ms) had p 0.80.
        /// (faster-whisper counts a word under 0.133 s as anomalous in proportion.)
        var placelessWordSeconds: Double = 0.066
        /// See `placelessWordSeconds`.
        var placelessWordMinimumConfidence: Double = 0.5
        /// Volatile words at the end of a decode with a lower probability are not shown: the newest word is the one
        /// the next update most often spells differently or drops. On the bundled recordings (`scripts/live-bench`)
        /// 0.5 took flicker from 0.20 to 0.07 for 0.06 s more until a word's first appearance (docs/streaming.md).
        var volatileWordMinimumConfidence: Double = 0.5
        /// A word with a lower probability needs three consecutive decodes that agree on it, not two: an unlikely
        /// word is the likeliest to change. After a pause two early decodes agreed on a wrong sentence start ("And
        /// sure" for "In short", p 0.25) that the third would have changed, and in real time two agreed on an inserted
        /// "it" (p 0.48, then 0.41: "insisted it on"). On `scripts/live-bench --sweep 10` it took the bundled
        /// recordings from ΔWER +1.0 to +0.9 (docs/streaming.md).
        var thirdAgreementMinimumConfidence: Double = 0.5
        /// A word with a lower probability that the earlier of its two agreeing decodes heard barely (ending less than
        /// `barelyHeardSeconds` before that decode's audio ended) needs a third agreeing decode: otherwise the two
        /// agree on what one decode guessed without hearing the word out, as when "its" came out "it's" (p 0.55,
        /// first seen ending past the audio's end). On `scripts/live-bench --sweep 10 --jitter 0.05` it took
        /// two_cities.wav from one replay in ten with two words off to none (docs/streaming.md).
        var barelyHeardMinimumConfidence: Double = 0.6
        /// See `barelyHeardMinimumConfidence`.
        var barelyHeardSeconds: Double = 0.3
        /// When words become final.
        var policy: StreamingPolicy = .localAgreement
        /// Seconds of padding after the buffer's audio in the encoder's window, which is then shorter than Whisper's
        /// 30 s and cheaper in proportion; nil encodes the full 30 s.
        var encoderPaddingSeconds: Double? = nil
        /// Seconds of new audio that start an update (`scripts/live-bench` chose it: see docs/streaming.md).
        static let cadenceSeconds = 0.5
        /// Beam width of live decodes: on the bundled recordings, beam 3 brought the final text within 0.9 WER points
        /// of the file transcription, greedy decoding 2.3 (docs/streaming.md).
        static let liveBeamSize = 3
        /// New tokens one live decode may write: a window holds at most a few seconds of new speech.
        static let liveMaxNewTokens = 96

        /// The live configuration: what every live transcription runs (the analyzer's transcribers, `LiveReplay`
        /// and `scripts/live-bench`), greedy temperature 0 with beam `liveBeamSize`, conditioned on the previous text.
        static func live(language: String, contextPrompt: String? = nil, policy: StreamingPolicy = .localAgreement) -> Configuration {
            var options = DecodingOptions(language: language, temperatures: [0], beamSize: liveBeamSize, conditionOnPreviousText: true)
            options.maxNewTokens = liveMaxNewTokens
            return Configuration(options: options, contextPrompt: contextPrompt, policy: policy)
        }
    }

    /// What one update produced: newly final words, the volatile words that replace the last ones, and timing.
    struct Update: Sendable {
        /// Words that became final with this update, in order; never revised.
        var committed: [TimedWord]
        /// The words after them that are still volatile (replaced wholesale by the next update).
        var volatile: [TimedWord]
        /// Session audio (seconds) that had been received when this update's decode started.
        var audioTime: Double
        /// Seconds the decode took.
        var computeSeconds: Double
        /// Whether this was a flush.
        var isFinal: Bool
        /// Alternatives of the committed text from beam search (first is the committed text), when asked for.
        var alternatives: [String]
        /// Whether the speaker paused after the committed words: nothing audible follows them, so the phrase they
        /// end is complete.
        var endsPhrase = false
    }

    let decoder: WindowDecoder
    let configuration: Configuration
    private let language: String

    /// Audio not yet dropped, from session sample `bufferStart` on.
    private var buffer: [Float] = []
    private var bufferStart = 0
    /// Session samples received so far.
    private(set) var receivedSamples = 0
    /// Samples received when the last decode started.
    private var decodedThrough = 0
    /// Committed words that still lie in the buffer: forced as the prefix of each decode.
    private var committedInBuffer: [TimedWord] = []
    /// Committed text before the buffer: the decoder's previous text.
    private var promptText = ""
    /// Which words of each decode become final.
    private var policy: CommitPolicy
    /// Whether anything has been committed in this session (the first final loses its leading space).
    private var hasCommitted = false
    /// The volatile words the last update delivered, which a flush commits when its own decode finds less.
    private var shownVolatile: [TimedWord] = []
    /// Whether words were committed since the last pause was reported (`Update.endsPhrase`).
    private var phraseOpen = false
    /// Whether the flush under way keeps the recent audio (`endSpeech()`).
    private var keepsContextAtFlush = false

    init(decoder: WindowDecoder, language: String, configuration: Configuration) {
        self.decoder = decoder
        self.language = language
        self.configuration = configuration
        policy = CommitPolicy(configuration: configuration)
        promptText = configuration.contextPrompt ?? ""
    }

    /// Seconds of session audio received.
    var receivedSeconds: Double { Double(receivedSamples) / Double(WhisperTime.sampleRate) }

    /// Session seconds where the buffer (the audio the next decode hears) begins: it moves on at each trim.
    var bufferStartSeconds: Double { Double(bufferStart) / Double(WhisperTime.sampleRate) }

    /// Seconds of audio received since the last decode.
    var undecodedSeconds: Double { Double(receivedSamples - decodedThrough) / Double(WhisperTime.sampleRate) }

    /// Adds audio that follows what was appended before.
    func append(_ samples: [Float]) {
        buffer += samples
        receivedSamples += samples.count
    }

    /// Advances the session's clock over `count` samples the engine does not hear (silence that voice activation
    /// skipped). With audio still in the buffer, they join it as digital silence, so that its times stay right.
    func skip(_ count: Int) {
        guard count > 0 else { return }
        let limit = Int(configuration.maxBufferSeconds * Double(WhisperTime.sampleRate))
        if !buffer.isEmpty, policy.pending.isEmpty, buffer.count + count > limit {
            // A long pause after the words were all final: their audio is no longer worth keeping.
            moveToPrompt(committedInBuffer.count)
            bufferStart += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
        if buffer.isEmpty {
            bufferStart += count
        } else {
            buffer += [Float](repeating: 0, count: count)
        }
        receivedSamples += count
        decodedThrough += count
    }

    /// A flush at the end of speech (voice activation's): every word becomes final, as at any flush, but the last
    /// `trimKeepSeconds` of audio stay, their committed words forced as the next decode's prefix, so that the speech
    /// after the pause is heard with the context a continuous session has (a decode of the new speech alone was unsure
    /// of its first word: "They thought", "It's what", "I thought" for "You thought").
    func endSpeech() throws -> Update? {
        keepsContextAtFlush = true
        defer { keepsContextAtFlush = false }
        return try update(final: true)
    }

    /// Decodes the buffer and commits what the policy allows; with `final`, commits every word (a flush). Returns nil
    /// when nothing was decoded (too little audio, or silence).
    func update(final: Bool) throws -> Update? {
        let result = try nextUpdate(final: final)
        if let result { shownVolatile = result.volatile }
        return result
    }

    /// `update`'s work; nil leaves the volatile words shown as they were.
    private func nextUpdate(final: Bool) throws -> Update? {
        let started = Date()
        let audioTime = receivedSeconds
        decodedThrough = receivedSamples
        let bufferSeconds = Double(buffer.count) / Double(WhisperTime.sampleRate)
        if !final && bufferSeconds < configuration.minimumDecodeSeconds { return nil }
        if buffer.isEmpty || isSilent(buffer) {
            // Nothing to say: keep the last second (a word may be starting) and drop the rest.
            let pending = policy.pending
            policy.reset()
            if final && !pending.isEmpty {
                dropSilence()
                return commitAll(pending, audioTime: audioTime, started: started)
            }
            let committed = commit(CommitPolicy.punctuationOnly(pending))
            dropSilence()
            return pause(after: committed, hadVolatile: !pending.isEmpty, audioTime: audioTime, started: started, final: final)
        }
        // Nothing audible after the last committed word: there is nothing new to say, and a decode would only invent
        // words in the silence.
        if let lastEnd = committedInBuffer.last?.end {
            let tail = max(0, min(buffer.count, Int(lastEnd * Double(WhisperTime.sampleRate)) - bufferStart))
            if isSilent(Array(buffer[tail...])) {
                let hadVolatile = !policy.pending.isEmpty
                // Silence after the words confirms the punctuation the last decode put after them.
                let committed = commit(CommitPolicy.punctuationOnly(policy.pending))
                policy.reset()
                if final { _ = trim(final: true) }
                return pause(after: committed, hadVolatile: hadVolatile, audioTime: audioTime, started: started, final: final)
            }
        }
        var samples = buffer
        if final && bufferSeconds < configuration.minimumDecodeSeconds {
            // Whisper hears a short final piece better with some silence after it.
            samples += [Float](repeating: 0, count: Int(0.3 * Double(WhisperTime.sampleRate)))
        }
        let hypothesis = try decode(samples)
        var result: Update
        if final {
            let decoded = policy.withoutUnlikelyEnd(hypothesis.words)
            let words = Self.flushWords(decoded: decoded, shown: shownVolatile)
            result = commitAll(words, audioTime: audioTime, started: started)
            result.alternatives = words == decoded ? hypothesis.alternatives : []
        } else {
            let decision = policy.decide(on: hypothesis.words, audioTime: audioTime)
            result = Update(
                committed: commit(decision.committed), volatile: Array(decision.pending[..<decision.shown]),
                audioTime: audioTime, computeSeconds: Date().timeIntervalSince(started), isFinal: false, alternatives: [])
        }
        let forced = trim(final: final)
        if !forced.isEmpty {
            result.committed += forced
            result.volatile = []
        }
        return result
    }

    // MARK: - Decoding

    /// The words a decode of the buffer finds after the committed text in it, and the text alternatives of beam
    /// search for those words.
    private func decode(_ samples: [Float]) throws -> (words: [TimedWord], alternatives: [String]) {
        let window = try decoder.encode(samples, windowFrames: encoderWindowFrames(samples: samples.count))
        let committedText = committedInBuffer.map(\.text).joined()
        var options = configuration.options
        options.wordTimestamps = true
        options.withoutTimestamps = true
        options.language = language
        let request = WindowRequest(
            language: language, previousTokens: promptText.isEmpty ? [] : decoder.tokens(of: " " + promptText.trimmingCharacters(in: .whitespaces)),
            prefixTokens: committedText.isEmpty ? [] : decoder.tokens(of: committedText), alignsPrefix: true,
            timeOffset: Double(bufferStart) / Double(WhisperTime.sampleRate),
            lastSpeechTime: committedInBuffer.last?.end ?? Double(bufferStart) / Double(WhisperTime.sampleRate))
        let result = try decoder.decode(window, request: request, options: options)
        // A silent window, or a looping one (Whisper's hallucinations), says nothing new.
        if result.isNoSpeech { return ([], []) }
        if let threshold = options.compressionRatioThreshold, result.compressionRatio > threshold { return ([], []) }
        let words = result.segments.flatMap { $0.words ?? [] }.map(TimedWord.init)
        let alternatives = result.alternatives.map { decoder.text(of: $0) }
        // Words placed after the last sound are Whisper's inventions ("You", "Thank you.") on trailing silence.
        let soundEnd = Double(bufferStart + lastSoundSample(samples)) / Double(WhisperTime.sampleRate)
        // Punctuation standing alone after a space (" .", ". . .") is no word: the decoder writes it at the end of
        // speech, and once committed it would be forced and written again. Punctuation that closes the last
        // committed word (".") stays.
        let heard = Self.words(after: committedText, in: words).filter { word in
            word.start < soundEnd
                && (!word.text.contains(" ") || word.text.unicodeScalars.contains { CharacterSet.alphanumerics.contains($0) })
        }
        let newAudioStart = committedInBuffer.last?.end ?? Double(bufferStart) / Double(WhisperTime.sampleRate)
        if !Self.fitsTheAudio(wordCount: heard.count, from: newAudioStart, to: soundEnd) { return ([], []) }
        return (heard, alternatives)
    }

    /// Whether `wordCount` new words fit the audio between the committed words' end and the last sound: at most
    /// `maximumWordsPerSecond` per second, and 3 more (the alignment may place the committed words' end late). More
    /// is Whisper repeating the forced prefix, not new speech: in one CI run `aural listen` wrote the recording's
    /// last sentence (18 words, after an invented "you can see that there are") a second time after it was final.
    static func fitsTheAudio(wordCount: Int, from start: Double, to end: Double) -> Bool {
        Double(wordCount) <= Configuration.maximumWordsPerSecond * max(0, end - start) + 3
    }

    /// Mel frames of the encoder's window for a buffer of `samples`: 30 s, or the audio and its padding rounded up to
    /// the second.
    private func encoderWindowFrames(samples: Int) -> Int {
        guard let padding = configuration.encoderPaddingSeconds else { return WhisperTime.windowFrames }
        let seconds = (Double(samples) / Double(WhisperTime.sampleRate) + padding).rounded(.up)
        return min(WhisperTime.windowFrames, Int(seconds) * 100)
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

    /// The words a flush commits: those of its own decode (`decoded`, its unlikely end already left out), unless
    /// they are nothing, or the first words of what the last update showed as volatile (`shown`), compared by their
    /// letters and digits. Then the shown words are committed, so that a stop never takes back words the user saw: a
    /// flush decode comes back empty when it fails Whisper's own checks (no speech, a looping compression ratio,
    /// more words than the audio holds) and may lose words at its end to the unlikely-word rule.
    static func flushWords(decoded: [TimedWord], shown: [TimedWord]) -> [TimedWord] {
        if decoded.isEmpty { return shown }
        func letters(_ words: [TimedWord]) -> [String] {
            words.map { String($0.text.lowercased().filter { $0.isLetter || $0.isNumber }) }.filter { !$0.isEmpty }
        }
        let decodedLetters = letters(decoded), shownLetters = letters(shown)
        return decodedLetters.count < shownLetters.count && shownLetters.starts(with: decodedLetters) ? shown : decoded
    }

    /// Whether `text` ends with a mark that ends a sentence (`WordPunctuation.endsSentence`).
    private static func endsSentence(_ text: String) -> Bool { text.last.map(WordPunctuation.endsSentence) ?? false }

    // MARK: - Committing

    /// The update of a decode skipped for silence: the punctuation it confirmed, and the end of the phrase when words
    /// were committed since the last pause; nil when there is nothing to report.
    private func pause(after committed: [TimedWord], hadVolatile: Bool, audioTime: Double, started: Date, final: Bool) -> Update? {
        let endsPhrase = phraseOpen
        phraseOpen = false
        guard hadVolatile || endsPhrase else { return nil }
        return Update(
            committed: committed, volatile: [], audioTime: audioTime, computeSeconds: Date().timeIntervalSince(started),
            isFinal: final, alternatives: [], endsPhrase: endsPhrase)
    }

    /// Commits `words` but their unlikely end (see `trailingWordMinimumConfidence`): the end of a flush.
    private func commitAll(_ words: [TimedWord], audioTime: Double, started: Date) -> Update {
        policy.reset()
        return Update(
            committed: commit(policy.withoutUnlikelyEnd(words)), volatile: [],
            audioTime: audioTime,
            computeSeconds: Date().timeIntervalSince(started), isFinal: true, alternatives: [])
    }

    /// Records `words` as committed and returns them as they are delivered.
    private func commit(_ words: [TimedWord]) -> [TimedWord] {
        guard !words.isEmpty else { return [] }
        committedInBuffer += words
        phraseOpen = true
        var delivered = words
        if !hasCommitted {
            delivered[0].text = String(delivered[0].text.drop(while: { $0 == " " }))
            hasCommitted = true
        }
        return delivered
    }

    // MARK: - The buffer

    /// After a flush the buffer restarts empty; otherwise a buffer over `maxBufferSeconds` is cut at the end of a
    /// committed word (`trimWord`), and the committed words before the cut become previous text. Returns the
    /// words a forced cut made final (see `forceCut`), which the update must deliver.
    private func trim(final: Bool) -> [TimedWord] {
        if final, keepsContextAtFlush {
            keepRecentAudio()
            return []
        }
        if final {
            moveToPrompt(committedInBuffer.count)
            bufferStart += buffer.count
            buffer.removeAll(keepingCapacity: true)
            return []
        }
        let seconds = Double(buffer.count) / Double(WhisperTime.sampleRate)
        guard seconds > configuration.maxBufferSeconds, committedInBuffer.count >= 2 else {
            return seconds > 28 ? forceCut() : []
        }
        let cutWord = trimWord()
        let cutSample = Int(committedInBuffer[cutWord].end * Double(WhisperTime.sampleRate))
        guard cutSample > bufferStart else { return [] }
        cut(at: cutSample)
        moveToPrompt(cutWord + 1)
        return []
    }

    /// Cuts the buffer at the end of the latest committed word that ends `trimKeepSeconds` before the received end (no
    /// cut when none does): what `endSpeech()` keeps.
    private func keepRecentAudio() {
        let latestEnd = receivedSeconds - configuration.trimKeepSeconds
        guard let cutWord = committedInBuffer.lastIndex(where: { $0.end <= latestEnd }) else { return }
        cut(at: max(bufferStart, Int(committedInBuffer[cutWord].end * Double(WhisperTime.sampleRate))))
        moveToPrompt(cutWord + 1)
    }

    /// The committed word (never the last) at whose end a trim cuts; see `trimKeepSeconds`.
    private func trimWord() -> Int {
        let beforeLast = committedInBuffer.count - 2
        let keep = configuration.trimKeepSeconds
        guard keep > 0 else { return beforeLast }
        let latestEnd = receivedSeconds - keep
        guard let latest = committedInBuffer[...beforeLast].lastIndex(where: { $0.end <= latestEnd }) else { return beforeLast }
        let sentenceEnd = committedInBuffer[...latest].lastIndex(where: { $0.end >= latestEnd - keep && Self.endsSentence($0.text) })
        return sentenceEnd ?? latest
    }

    /// A buffer near Whisper's 30 s that could not be trimmed (too few committed words, or `maxBufferSeconds` above
    /// it): the pending words but their unlikely end become final so the audio can go, and are returned as delivered.
    private func forceCut() -> [TimedWord] {
        let pending = policy.pending
        policy.reset()
        let forced = commit(policy.withoutUnlikelyEnd(pending))
        let keep = committedInBuffer.count >= 2 ? committedInBuffer.count - 1 : committedInBuffer.count
        let cutSample = keep > 0 ? Int(committedInBuffer[keep - 1].end * Double(WhisperTime.sampleRate)) : bufferStart + buffer.count / 2
        cut(at: max(cutSample, bufferStart + buffer.count / 2))
        moveToPrompt(keep)
        return forced
    }

    private func cut(at sample: Int) {
        let drop = min(buffer.count, max(0, sample - bufferStart))
        buffer.removeFirst(drop)
        bufferStart += drop
    }

    private func moveToPrompt(_ count: Int) {
        guard count > 0 else { return }
        promptText += committedInBuffer[..<count].map(\.text).joined()
        if promptText.count > configuration.promptCharacters {
            promptText = String(promptText.suffix(configuration.promptCharacters))
        }
        committedInBuffer.removeFirst(count)
    }

    /// Keeps the last second of a silent buffer.
    private func dropSilence() {
        let keep = WhisperTime.sampleRate
        if buffer.count > keep {
            moveToPrompt(committedInBuffer.count)
            cut(at: bufferStart + buffer.count - keep)
        }
    }

    /// One past the last sample of the last 100 ms frame of `samples` louder than `silenceRMS`; 0 when all are quiet.
    private func lastSoundSample(_ samples: [Float]) -> Int {
        let frame = WhisperTime.sampleRate / 10
        var start = (samples.count - 1) / frame * frame
        while start >= 0 {
            let stop = min(samples.count, start + frame)
            var sum: Float = 0
            for i in start..<stop { sum += samples[i] * samples[i] }
            if stop > start, Double((sum / Float(stop - start)).squareRoot()) >= configuration.silenceRMS { return stop }
            start -= frame
        }
        return 0
    }

    private func isSilent(_ samples: [Float]) -> Bool {
        let frame = WhisperTime.sampleRate / 10
        var start = 0
        while start < samples.count {
            let stop = min(samples.count, start + frame)
            var sum: Float = 0
            for i in start..<stop { sum += samples[i] * samples[i] }
            if Double((sum / Float(stop - start)).squareRoot()) >= configuration.silenceRMS { return false }
            start = stop
        }
        return true
    }
}
