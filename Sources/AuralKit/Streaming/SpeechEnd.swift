import AuralVAD

/// Where the last speech that Silero VAD heard ends, by the rules of silero-vad's `get_speech_timestamps`: speech
/// starts at a chunk with a probability of at least 0.5, goes on while chunks stay at 0.35 or above with gaps under
/// 100 ms bridged, and counts only once it has lasted 250 ms. A breath or a click after speech (the 0.2 s sound after
/// `two_cities.wav`'s last word scores up to 0.8) is too short to count.
struct SpeechEnd: Sendable {
    private var stream: SileroVAD.Stream
    /// Session sample of the stream's first chunk.
    private var origin = 0
    /// The speech run being followed: its first sample, its last speech chunk's end, and chunks below 0.35 since.
    private var runStart: Int?
    private var runEnd = 0
    private var quietChunks = 0
    /// One past the last session sample of speech that has lasted 250 ms, if any has been heard.
    private(set) var lastSpeechSample: Int?

    private static let onset: Float = 0.5, offset: Float = 0.35
    private static let minimumSpeechSamples = 4_000  // 250 ms
    private static let bridgedChunks = 3  // under 100 ms

    init(vad: SileroVAD) {
        stream = vad.stream()
    }

    /// Follows the next received samples.
    mutating func append(_ samples: [Float]) {
        let first = stream.chunkCount
        for (index, probability) in stream.append(samples).enumerated() {
            let start = origin + (first + index) * SileroVAD.chunkSize
            if probability >= Self.offset && (runStart != nil || probability >= Self.onset) {
                if runStart == nil { runStart = start }
                runEnd = start + SileroVAD.chunkSize
                quietChunks = 0
                if let runStart, runEnd - runStart >= Self.minimumSpeechSamples { lastSpeechSample = runEnd }
            } else if runStart != nil {
                quietChunks += 1
                if quietChunks > Self.bridgedChunks { runStart = nil }
            }
        }
    }

    /// Starts over at session sample `sample`, after audio that was not received (skipped silence).
    mutating func restart(at sample: Int) {
        stream.reset()
        origin = sample
        runStart = nil
        quietChunks = 0
    }
}
