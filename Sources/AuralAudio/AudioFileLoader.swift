import Foundation

/// Reads an audio file into what Whisper takes: 16 kHz mono `Float` samples.
///
/// ```swift
/// let samples = try AudioFileLoader.loadMono16k(url: URL(fileURLWithPath: "speech.mp3"))
/// let seconds = Double(samples.count) / Double(AudioConverter.outputSampleRate)
/// ```
public enum AudioFileLoader {
    /// Reads a whole audio or video file's sound and converts it to 16 kHz mono, bit-identical to
    /// faster-whisper's `decode_audio` of the same file.
    ///
    /// Any format FFmpeg reads (WAV, FLAC, MP3, Ogg, M4A, WebM, the audio of MP4/MKV video, …), at any
    /// sample rate and channel count, is decoded with `AudioFileReader`, then downmixed and resampled by
    /// libswresample through 16-bit samples, so values are multiples of 1/32768 in -1..<1.
    ///
    /// - Parameter url: A local file.
    /// - Returns: Samples at 16 kHz; empty for a file with no audio frames.
    /// - Throws: `AudioSourceError` when the file cannot be read, is not audio, or cannot be decoded.
    /// - Note: Holds the whole result in memory (64 KB per second of audio); read long files with
    ///   `AudioFileReader` instead. Blocks while decoding.
    public static func loadMono16k(url: URL) throws -> [Float] {
        let reader = try AudioFileReader(url: url, chunkSampleCount: 60 * AudioConverter.outputSampleRate)
        var samples: [Float] = []
        if let duration = reader.duration, duration > 0, duration < 24 * 3600 {
            samples.reserveCapacity(Int(duration * Double(AudioConverter.outputSampleRate)) + 1)
        }
        while let chunk = try reader.read() {
            samples += chunk
        }
        return samples
    }
}
