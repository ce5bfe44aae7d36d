import AuralWhisper

/// Encodes the live buffer for each decode. With `Configuration.encoderReuse`, a full 30-second encode is kept while
/// the buffer only grows, and the next encodes compute only the part of the window that changed the most: the audio
/// from a little before the new speech (the words not yet committed) to a little padding after its end. Every other
/// position comes from the kept encode (`WindowDecoder.encode(_:computing:reusing:)`). The full encode is made again
/// when the buffer no longer extends the audio it was made of (a trim, a flush, skipped silence at an empty buffer),
/// or has grown by more than `EncoderReuse.refreshSeconds` since.
///
/// Not thread-safe: one decode at a time, as `StreamingTranscription`.
final class LiveEncoder {
    private let decoder: WindowDecoder
    private let reuse: EncoderReuse?
    /// The kept full encode, the session sample where its audio began, and how many samples it held.
    private var kept: (encoding: ReusableEncoding, start: Int, sampleCount: Int)?

    init(decoder: WindowDecoder, reuse: EncoderReuse?) {
        self.decoder = decoder
        self.reuse = reuse
    }

    /// Encodes `samples`, the buffer's audio from session sample `start` on (at most 30 s), whose new speech starts
    /// `newSpeech` seconds into it.
    /// - Parameter extendable: whether later buffers extend these samples (false when silence was appended to them).
    func encode(_ samples: [Float], start: Int, newSpeech: Double, extendable: Bool) throws -> EncodedWindow {
        guard let reuse else { return try decoder.encode(samples) }
        let rate = Double(WhisperTime.sampleRate)
        if let kept, kept.start == start, samples.count >= kept.sampleCount,
           Double(samples.count - kept.sampleCount) <= reuse.refreshSeconds * rate
        {
            let keptEnd = Double(kept.sampleCount) / rate
            let from = reuse.contextSeconds.map { max(0, min(keptEnd, newSpeech) - $0) } ?? 0
            let end = Double(samples.count) / rate + reuse.paddingSeconds
            return try decoder.encode(samples, computing: from..<end, reusing: kept.encoding)
        }
        let encoding = try decoder.encodeForReuse(samples)
        kept = extendable ? (encoding, start, samples.count) : nil
        return encoding.window
    }
}

/// Which part of the encoder's window a live encode computes, and how long a kept full encode serves (`LiveEncoder`).
package struct EncoderReuse: Sendable, Hashable {
    /// Seconds of audio before the new speech (or before the kept encode's end, if earlier) that each encode
    /// computes; nil computes all the audio, taking only the padding from the kept encode.
    package var contextSeconds: Double?
    /// Seconds of padding after the audio that each encode computes.
    package var paddingSeconds: Double
    /// Seconds of new audio after which the full encode is made again.
    package var refreshSeconds: Double

    package init(contextSeconds: Double?, paddingSeconds: Double, refreshSeconds: Double) {
        self.contextSeconds = contextSeconds
        self.paddingSeconds = paddingSeconds
        self.refreshSeconds = refreshSeconds
    }

    /// What live sessions run (see docs/streaming.md).
    package static let live = EncoderReuse(contextSeconds: 2.0, paddingSeconds: 1.0, refreshSeconds: 2.0)
}
