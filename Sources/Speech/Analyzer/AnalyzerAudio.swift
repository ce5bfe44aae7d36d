import AVFoundation
import AuralAudio
import Foundation

/// The audio the analyzer's modules take (16 kHz mono float32, what Whisper and Silero hear) and the conversion of
/// any linear PCM `AVAudioPCMBuffer` to it.
enum AnalyzerAudio {
    /// The sample rate of the modules' audio.
    static let sampleRate = 16_000

    /// 16 kHz mono float32, deinterleaved.
    static let format = AVAudioFormat(standardFormatWithSampleRate: Double(sampleRate), channels: 1)!

    /// The buffer's frames as interleaved floats in -1...1 with their rate and channel count.
    /// - Throws: `SFSpeechError(.unexpectedAudioFormat)` for a buffer that is not linear PCM or has no channels.
    static func interleaved(_ buffer: AVAudioPCMBuffer) throws -> AudioBuffer {
        let format = AudioFormat(sampleRate: Int(buffer.format.sampleRate.rounded()), channelCount: Int(buffer.format.channelCount))
        guard buffer.format.commonFormat != .otherFormat, format.channelCount > 0, format.sampleRate > 0 else {
            throw SFSpeechError(.unexpectedAudioFormat, detail: "\(buffer.format)")
        }
        return AudioBuffer(samples: buffer.interleavedFloats(frames: 0..<Int(buffer.frameLength)), format: format, startTime: 0)
    }
}
