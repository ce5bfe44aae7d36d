import Foundation

/// Reads an audio file into what Whisper takes: 16 kHz mono `Float` samples.
///
/// ```swift
/// let samples = try AudioFileLoader.loadMono16k(url: URL(fileURLWithPath: "speech.wav"))
/// let seconds = Double(samples.count) / Double(AudioConverter.outputSampleRate)
/// ```
public enum AudioFileLoader {
    /// Reads a WAV file and converts it to 16 kHz mono, bit-identical to faster-whisper's `decode_audio`.
    ///
    /// Any WAV encoding `WAVFile` reads, at any sample rate and channel count, is downmixed and resampled
    /// by libswresample through 16-bit samples, so values are multiples of 1/32768 in -1..<1.
    ///
    /// - Parameter url: A local WAV file.
    /// - Returns: Samples at 16 kHz; empty for a file with no audio frames.
    /// - Throws: `AudioSourceError` when the file cannot be read, is not WAV, or cannot be decoded.
    public static func loadMono16k(url: URL) throws -> [Float] {
        try WAVFile(url: url).mono16kSamples()
    }
}
