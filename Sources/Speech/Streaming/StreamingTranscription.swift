import AuralWhisper
import Foundation

/// Live transcription of a growing stream of 16 kHz mono audio: the streaming policy over `WindowDecoder`, in three
/// parts: `LiveBuffer` (the audio and the committed words in it), `LiveDecoder` (one decode of it) and `CommitPolicy`
/// (which words become final). This type runs them in turn and reports phrases.
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
/// become final. A flush never takes back what the last update showed (`flushWords`), and a decode that jumps over
/// words it showed is set aside (`Configuration.skippedSpeechSeconds`).
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
        /// Volatile words are shown only up to the first word with a lower probability: where tiny.en is unsure
        /// (a synthesized passage read without pauses), such a word ("argue", p 0.06, for "gulls argued") changes
        /// at the next update and takes every word after it off the screen. On the dense clips (`scripts/live-bench
        /// --sweep 4`) it took flicker from 0.23 to 0.14 for 0.05 s more until a word's first appearance; the
        /// bundled recordings did not change (docs/streaming.md).
        var unsureWordMinimumConfidence: Double = 0.15
        /// Volatile words at the end of a decode that end less than this many seconds before its audio's end are not
        /// shown: they were cut by it, and the next update spells them out differently ("carrot." for "carrots",
        /// "flour" for "flower", "lamb" for "lamps" on continuous speech).
        var cutWordSeconds: Double = 0.05
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
        /// Words two consecutive decodes must agree on after a word or two they spell differently in the same place,
        /// for the later spelling to become final with them (`LocalAgreement.substitutionContext`); nil waits for
        /// the two decodes to agree on every word.
        var substitutionContextWords: Int? = 3
        /// A decode whose first new word starts this many seconds after the first word the last update showed,
        /// past two or more of those words, skipped speech (`CommitPolicy.skipsShownWords`): an update sets it
        /// aside and shows the last words again, at most `maximumSetAsideDecodes` times in a row, and a flush
        /// keeps the skipped words.
        var skippedSpeechSeconds = 1.0
        /// See `skippedSpeechSeconds`.
        var maximumSetAsideDecodes = 2
        /// When words become final.
        var policy: StreamingPolicy = .localAgreement
        /// How each decode encodes its audio (`LiveEncoder`).
        var encoderWindow: LiveEncoderWindow = .live
        /// Threads of a decode; the encoder takes the session's. A decode's products are small: handing half of each
        /// to a second thread cost more CPU than it saved time (a tenth of a live session's CPU on continuous speech,
        /// docs/streaming.md).
        var decodeThreads = 1
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

    /// The engine's window decoder (shared by every session on the model).
    var decoder: WindowDecoder { liveDecoder.decoder }
    let configuration: Configuration

    private let liveDecoder: LiveDecoder
    /// The audio the next decode hears, and the committed words in it.
    private var buffer: LiveBuffer
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
    /// Consecutive decodes set aside for skipping shown words (`Configuration.skippedSpeechSeconds`).
    private var setAsideDecodes = 0

    init(decoder: WindowDecoder, language: String, configuration: Configuration) {
        liveDecoder = LiveDecoder(decoder: decoder, configuration: configuration, language: language)
        self.configuration = configuration
        buffer = LiveBuffer(configuration: configuration)
        policy = CommitPolicy(configuration: configuration)
    }

    /// Seconds of session audio received.
    var receivedSeconds: Double { buffer.receivedSeconds }

    /// Session seconds where the buffer (the audio the next decode hears) begins: it moves on at each trim.
    var bufferStartSeconds: Double { buffer.startSeconds }

    /// Seconds of audio received since the last decode.
    var undecodedSeconds: Double { buffer.undecodedSeconds }

    /// Adds audio that follows what was appended before.
    func append(_ samples: [Float]) {
        buffer.append(samples)
    }

    /// Advances the session's clock over `count` samples the engine does not hear (silence that voice activation
    /// skipped). With audio still in the buffer, they join it as digital silence, so that its times stay right.
    func skip(_ count: Int) {
        buffer.skip(count, hasPending: !policy.pending.isEmpty)
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
        buffer.markDecoded()
        if !final && buffer.seconds < configuration.minimumDecodeSeconds { return nil }
        if buffer.isSilent() {
            // Nothing to say: keep the last second (a word may be starting) and drop the rest.
            let pending = policy.pending
            policy.reset()
            if final && !pending.isEmpty {
                buffer.dropSilence()
                return commitAll(pending, audioTime: audioTime, started: started)
            }
            let committed = commit(CommitPolicy.punctuationOnly(pending))
            buffer.dropSilence()
            return pause(after: committed, hadVolatile: !pending.isEmpty, audioTime: audioTime, started: started, final: final)
        }
        // Nothing audible after the last committed word: there is nothing new to say, and a decode would only invent
        // words in the silence.
        if buffer.isSilentAfterCommitted {
            let hadVolatile = !policy.pending.isEmpty
            // Silence after the words confirms the punctuation the last decode put after them.
            let committed = commit(CommitPolicy.punctuationOnly(policy.pending))
            policy.reset()
            if final { _ = trim(final: true) }
            return pause(after: committed, hadVolatile: hadVolatile, audioTime: audioTime, started: started, final: final)
        }
        var samples = buffer.samples
        if final && buffer.seconds < configuration.minimumDecodeSeconds {
            // Whisper hears a short final piece better with some silence after it.
            samples += [Float](repeating: 0, count: Int(0.3 * Double(WhisperTime.sampleRate)))
        }
        let hypothesis = try liveDecoder.decode(samples, of: buffer)
        var result: Update
        if final {
            result = flush(hypothesis, audioTime: audioTime, started: started)
        } else if setsAside(hypothesis) {
            result = Update(
                committed: [], volatile: shownVolatile, audioTime: audioTime,
                computeSeconds: Date().timeIntervalSince(started), isFinal: false, alternatives: [])
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

    /// A flush's update: every word of its decode but an unlikely end (`flushWords`); when the decode skipped words
    /// the last update showed, those words and then the decode's (`CommitPolicy.mergingSkippedWords`).
    private func flush(_ hypothesis: LiveDecoder.Hypothesis, audioTime: Double, started: Date) -> Update {
        setAsideDecodes = 0
        let decoded = policy.withoutUnlikelyEnd(hypothesis.words)
        let words = policy.skipsShownWords(decoded, shown: shownVolatile)
            ? CommitPolicy.mergingSkippedWords(decoded, shown: shownVolatile)
            : Self.flushWords(decoded: decoded, shown: shownVolatile)
        var result = commitAll(words, audioTime: audioTime, started: started)
        result.alternatives = words == decoded ? hypothesis.alternatives : []
        return result
    }

    /// Whether an update sets its decode aside and shows the last volatile words again: the decode skipped words
    /// they hold (`CommitPolicy.skipsShownWords`), and fewer than `maximumSetAsideDecodes` decodes before it were set
    /// aside in a row.
    private func setsAside(_ hypothesis: LiveDecoder.Hypothesis) -> Bool {
        guard setAsideDecodes < configuration.maximumSetAsideDecodes,
              policy.skipsShownWords(hypothesis.words, shown: shownVolatile) else {
            setAsideDecodes = 0
            return false
        }
        setAsideDecodes += 1
        return true
    }

    /// The words a flush commits: those of its own decode (`decoded`, its unlikely end already left out), unless
    /// they are nothing, or the first words of what the last update showed as volatile (`shown`), compared by their
    /// letters and digits. Then the shown words are committed, so that a stop never takes back words the user saw: a
    /// flush decode comes back empty when it fails Whisper's own checks (no speech, a looping compression ratio,
    /// more words than the audio holds) and may lose words at its end to the unlikely-word rule.
    static func flushWords(decoded: [TimedWord], shown: [TimedWord]) -> [TimedWord] {
        if decoded.isEmpty { return shown }
        func letters(_ words: [TimedWord]) -> [String] {
            words.map(\.spoken).filter { !$0.isEmpty }
        }
        let decodedLetters = letters(decoded), shownLetters = letters(shown)
        return decodedLetters.count < shownLetters.count && shownLetters.starts(with: decodedLetters) ? shown : decoded
    }

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
        buffer.commit(words)
        phraseOpen = true
        var delivered = words
        if !hasCommitted {
            delivered[0].text = String(delivered[0].text.drop(while: { $0 == " " }))
            hasCommitted = true
        }
        return delivered
    }

    /// After a flush the buffer restarts empty (or, at the end of speech, keeps its recent audio); otherwise a buffer
    /// over `maxBufferSeconds` is trimmed at a committed word's end, and one near 30 s that cannot be trimmed is cut
    /// by force: its pending words but their unlikely end become final, and are returned for the update to deliver.
    private func trim(final: Bool) -> [TimedWord] {
        if final {
            if keepsContextAtFlush { buffer.keepRecentAudio() } else { buffer.clear() }
            return []
        }
        if buffer.needsForcedCut {
            let pending = policy.pending
            policy.reset()
            let forced = commit(policy.withoutUnlikelyEnd(pending))
            buffer.forceCut()
            return forced
        }
        buffer.trim()
        return []
    }
}
