/// Whisper's units of time, in one place: 16 kHz samples, 10 ms mel frames, 20 ms encoder positions and timestamp
/// tokens, 30-second windows.
public enum WhisperTime {
    /// Audio samples per second.
    public static let sampleRate = 16_000
    /// Samples per mel frame (the STFT hop).
    public static let samplesPerFrame = 160
    /// Seconds per mel frame (10 ms).
    public static let secondsPerFrame = 0.01
    /// Seconds per encoder position and per timestamp token step (20 ms: the encoder halves the mel frames).
    public static let secondsPerPosition = 0.02
    /// Mel frames in one window (30 s).
    public static let windowFrames = 3000
    /// Samples in one window (30 s).
    public static let windowSamples = windowFrames * samplesPerFrame
    /// Seconds in one window.
    public static let windowSeconds = 30.0

    /// Seconds at mel frame `frame`.
    public static func seconds(frame: Int) -> Double { Double(frame) * secondsPerFrame }

    /// The mel frame at `seconds`, rounded half to even (Python's `round`).
    public static func frame(seconds: Double) -> Int { Int((seconds * 100).rounded(.toNearestOrEven)) }
}
