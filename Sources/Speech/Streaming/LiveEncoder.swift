import AuralWhisper

/// Encodes the live buffer for each decode, as `Configuration.encoderWindow` says. With `.reused`, a full 30-second
/// encode is kept while
/// the buffer only grows, and the next encodes compute only the part of the window that changed the most: the audio
/// from a little before the new speech (the words not yet committed) to a little padding after its end. Every other
/// position comes from the kept encode (`WindowDecoder.encode(_:computing:reusing:)`). The full encode is made again
/// when the buffer no longer extends the audio it was made of (a trim, a flush, skipped silence at an empty buffer),
/// or has grown by more than `EncoderReuse.refreshSeconds` since. Every encode computes only the log-mel frames that
/// differ from the last one's (`LogMelCache`).
///
/// Not thread-safe: one decode at a time, as `StreamingTranscription`.
final class LiveEncoder {
    private let decoder: WindowDecoder
    private let window: LiveEncoderWindow
    /// The kept full encode, the session sample where its audio began, and how many samples it held.
    private var kept: (encoding: ReusableEncoding, start: Int, sampleCount: Int)?
    /// The last encode's log-mel frames.
    private let melCache = LogMelCache()

    init(decoder: WindowDecoder, window: LiveEncoderWindow) {
        self.decoder = decoder
        self.window = window
    }

    /// Encodes `samples`, the buffer's audio from session sample `start` on (at most 30 s), whose new speech starts
    /// `newSpeech` seconds into it.
    /// - Parameter extendable: whether later buffers extend these samples (false when silence was appended to them).
    func encode(_ samples: [Float], start: Int, newSpeech: Double, extendable: Bool) throws -> EncodedWindow {
        let rate = Double(WhisperTime.sampleRate)
        let reuse: EncoderReuse
        switch window {
        case .full: return try decoder.encode(samples, melCache: melCache)
        case .shortened(let padding):
            // The audio and its padding rounded up to the second, at most 30 s.
            let seconds = (Double(samples.count) / rate + padding).rounded(.up)
            return try decoder.encode(samples, windowFrames: min(WhisperTime.windowFrames, Int(seconds) * 100), melCache: melCache)
        case .reused(let settings): reuse = settings
        }
        if let kept, kept.start == start, samples.count >= kept.sampleCount,
           Double(samples.count - kept.sampleCount) < reuse.refreshSeconds * rate
        {
            let keptEnd = Double(kept.sampleCount) / rate
            let from = reuse.contextSeconds.map { max(0, min(keptEnd, newSpeech) - $0) } ?? 0
            let end = Double(samples.count) / rate + reuse.paddingSeconds
            return try decoder.encode(samples, computing: from..<end, reusing: kept.encoding, melCache: melCache)
        }
        let encoding = try decoder.encodeForReuse(samples, melCache: melCache)
        kept = extendable ? (encoding, start, samples.count) : nil
        return encoding.window
    }
}

/// How live decodes encode their audio (`LiveEncoder`).
package enum LiveEncoderWindow: Sendable, Hashable {
    /// Whisper's full 30-second window, every time.
    case full
    /// A window of the audio and this many seconds of padding after it, rounded up to the second (whisper.cpp's
    /// `audio_ctx`): cheaper in proportion, but tiny.en writes much worse text (docs/streaming.md).
    case shortened(paddingSeconds: Double)
    /// The full window, computing only its changed part and reusing a kept full encode for the rest.
    case reused(EncoderReuse)

    /// What live sessions run.
    package static let live = LiveEncoderWindow.reused(.live)
}

/// Which part of the encoder's window a live encode computes, and how long a kept full encode serves (`LiveEncoder`).
package struct EncoderReuse: Sendable, Hashable {
    /// Seconds of audio before the new speech (or before the kept encode's end, if earlier) that each encode
    /// computes; nil computes all the audio, taking only the padding from the kept encode.
    package var contextSeconds: Double?
    /// Seconds of padding after the audio that each encode computes.
    package var paddingSeconds: Double
    /// Seconds of new audio at which the full encode is made again: an encode of less new audio reuses the kept
    /// one. (Updates every 0.5 s of audio in a replay fall exactly on 2.5 s; in real time a little after it, so the
    /// two make the full encode at the same update.)
    package var refreshSeconds: Double

    package init(contextSeconds: Double?, paddingSeconds: Double, refreshSeconds: Double) {
        self.contextSeconds = contextSeconds
        self.paddingSeconds = paddingSeconds
        self.refreshSeconds = refreshSeconds
    }

    /// What live sessions run (see docs/streaming.md).
    package static let live = EncoderReuse(contextSeconds: 2.0, paddingSeconds: 1.0, refreshSeconds: 2.5)
}
