import AuralWhisper

/// The audio a live decode hears and what was committed of it: the session's samples since the last trim (at most
/// `maxBufferSeconds`, then cut at a committed word's end), the committed words that still lie in them (forced as
/// each decode's prefix), and the committed text before them (the decoder's previous text, its last
/// `promptCharacters`).
///
/// No model and no policy: `StreamingTranscription` decides what is committed and when to trim; this keeps the
/// samples, times and words consistent. Times are session seconds.
struct LiveBuffer {
    private let configuration: StreamingTranscription.Configuration

    /// Audio not yet dropped, from session sample `start` on.
    private(set) var samples: [Float] = []
    /// The session sample where `samples` begins.
    private(set) var start = 0
    /// Session samples received so far.
    private(set) var receivedSamples = 0
    /// Samples received when the last decode started.
    private var decodedThrough = 0
    /// Committed words that still lie in the buffer: forced as the prefix of each decode.
    private(set) var committed: [TimedWord] = []
    /// Committed text before the buffer: the decoder's previous text.
    private(set) var promptText: String

    /// An empty buffer whose previous text starts as the configuration's context prompt.
    init(configuration: StreamingTranscription.Configuration) {
        self.configuration = configuration
        promptText = configuration.contextPrompt ?? ""
    }

    private static let sampleRate = Double(WhisperTime.sampleRate)

    /// Seconds of session audio received.
    var receivedSeconds: Double { Double(receivedSamples) / Self.sampleRate }
    /// Session seconds where the buffer begins.
    var startSeconds: Double { Double(start) / Self.sampleRate }
    /// Seconds of audio in the buffer.
    var seconds: Double { Double(samples.count) / Self.sampleRate }
    /// Seconds of audio received since the last decode started (`markDecoded()`).
    var undecodedSeconds: Double { Double(receivedSamples - decodedThrough) / Self.sampleRate }
    /// Where new speech begins: the end of the last committed word in the buffer, else the buffer's start.
    var newAudioStart: Double { committed.last?.end ?? startSeconds }
    /// The committed words' text in the buffer: the next decode's forced prefix.
    var committedText: String { committed.map(\.text).joined() }

    /// Adds audio that follows what was appended before.
    mutating func append(_ newSamples: [Float]) {
        samples += newSamples
        receivedSamples += newSamples.count
    }

    /// Advances the clock over `count` samples the engine does not hear (silence that voice activation skipped).
    /// With audio in the buffer they join it as digital silence, so that its times stay right; but when that would
    /// pass `maxBufferSeconds` and nothing is pending (`hasPending` false), the buffer's words are all final and its
    /// audio is no longer worth keeping: it is dropped first.
    mutating func skip(_ count: Int, hasPending: Bool) {
        guard count > 0 else { return }
        if !samples.isEmpty, !hasPending, samples.count + count > Int(configuration.maxBufferSeconds * Self.sampleRate) {
            clear()
        }
        if samples.isEmpty {
            start += count
        } else {
            samples += [Float](repeating: 0, count: count)
        }
        receivedSamples += count
        decodedThrough += count
    }

    /// Notes that a decode starts on everything received.
    mutating func markDecoded() {
        decodedThrough = receivedSamples
    }

    /// Records `words` as committed: they lie in the buffer, after the words committed before.
    mutating func commit(_ words: [TimedWord]) {
        committed += words
    }

    // MARK: - Trimming

    /// Drops all the audio: its committed words become previous text (after a flush).
    mutating func clear() {
        moveToPrompt(committed.count)
        start += samples.count
        samples.removeAll(keepingCapacity: true)
    }

    /// Whether the buffer holds more than `maxBufferSeconds` and two committed words or more, so that `trim()` can
    /// cut it at a committed word that is not the last.
    var isTrimmable: Bool { seconds > configuration.maxBufferSeconds && committed.count >= 2 }

    /// Whether the buffer nears Whisper's 30-second window (28 s) and `trim()` cannot make room.
    var needsForcedCut: Bool { seconds > 28 && !isTrimmable }

    /// Cuts a buffer over `maxBufferSeconds` at the end of a committed word (see `trimWord()`); the committed words
    /// before the cut become previous text. Does nothing unless `isTrimmable`.
    mutating func trim() {
        guard isTrimmable else { return }
        let cutWord = trimWord()
        let cutSample = Int(committed[cutWord].end * Self.sampleRate)
        guard cutSample > start else { return }
        cut(at: cutSample)
        moveToPrompt(cutWord + 1)
    }

    /// Cuts at the end of the latest committed word that ends `trimKeepSeconds` before the received end (no cut when
    /// none does), so the recent audio and its words stay as the next decode's context (`endSpeech()`).
    mutating func keepRecentAudio() {
        let latestEnd = receivedSeconds - configuration.trimKeepSeconds
        guard let cutWord = committed.lastIndex(where: { $0.end <= latestEnd }) else { return }
        cut(at: max(start, Int(committed[cutWord].end * Self.sampleRate)))
        moveToPrompt(cutWord + 1)
    }

    /// Makes room in a buffer near 30 s that `trim()` could not cut: keeps at most the second half of the audio, and
    /// of the committed words only the last of two or more (one alone becomes previous text). The caller commits the
    /// pending words first.
    mutating func forceCut() {
        let keep = committed.count >= 2 ? committed.count - 1 : committed.count
        let cutSample = keep > 0 ? Int(committed[keep - 1].end * Self.sampleRate) : start + samples.count / 2
        cut(at: max(cutSample, start + samples.count / 2))
        moveToPrompt(keep)
    }

    /// Keeps the last second of a silent buffer; its committed words become previous text.
    mutating func dropSilence() {
        let keep = WhisperTime.sampleRate
        if samples.count > keep {
            moveToPrompt(committed.count)
            cut(at: start + samples.count - keep)
        }
    }

    /// The committed word (never the last) at whose end a trim cuts: the latest that ends `trimKeepSeconds` before
    /// the received end, or the last sentence end within `trimKeepSeconds` before it.
    private func trimWord() -> Int {
        let beforeLast = committed.count - 2
        let keep = configuration.trimKeepSeconds
        guard keep > 0 else { return beforeLast }
        let latestEnd = receivedSeconds - keep
        guard let latest = committed[...beforeLast].lastIndex(where: { $0.end <= latestEnd }) else { return beforeLast }
        let sentenceEnd = committed[...latest].lastIndex { word in
            word.end >= latestEnd - keep && (word.text.last.map(WordPunctuation.endsSentence) ?? false)
        }
        return sentenceEnd ?? latest
    }

    private mutating func cut(at sample: Int) {
        let drop = min(samples.count, max(0, sample - start))
        samples.removeFirst(drop)
        start += drop
    }

    private mutating func moveToPrompt(_ count: Int) {
        guard count > 0 else { return }
        promptText += committed[..<count].map(\.text).joined()
        if promptText.count > configuration.promptCharacters {
            promptText = String(promptText.suffix(configuration.promptCharacters))
        }
        committed.removeFirst(count)
    }

    // MARK: - Loudness

    /// Whether every 100 ms frame of `samples` from sample `from` on is quieter than `silenceRMS`.
    func isSilent(from index: Int = 0) -> Bool {
        Self.lastSoundSample(in: samples[min(max(index, 0), samples.count)...], silenceRMS: configuration.silenceRMS) == nil
    }

    /// Whether the audio after the last committed word is quiet (nothing new to say), when a word is committed.
    var isSilentAfterCommitted: Bool {
        guard let lastEnd = committed.last?.end else { return false }
        return isSilent(from: Int(lastEnd * Self.sampleRate) - start)
    }

    /// One past the last sample (an index of `samples`' collection) of the last 100 ms frame louder than `silenceRMS`,
    /// counted from the slice's start; nil when all are quiet. Frames are aligned to the slice's start.
    static func lastSoundSample(in samples: ArraySlice<Float>, silenceRMS: Double) -> Int? {
        let frame = WhisperTime.sampleRate / 10
        guard !samples.isEmpty else { return nil }
        var frameStart = (samples.count - 1) / frame * frame
        while frameStart >= 0 {
            let lower = samples.startIndex + frameStart
            let upper = min(samples.endIndex, lower + frame)
            var sum: Float = 0
            for i in lower..<upper { sum += samples[i] * samples[i] }
            if Double((sum / Float(upper - lower)).squareRoot()) >= silenceRMS { return upper - samples.startIndex }
            frameStart -= frame
        }
        return nil
    }
}
