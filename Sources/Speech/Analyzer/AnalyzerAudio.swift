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
    /// - Throws: `SFSpeechError(.unexpectedAudioFormat)` for a buffer with no float32, int16 or int32 samples.
    static func interleaved(_ buffer: AVAudioPCMBuffer) throws -> AudioBuffer {
        let channels = Int(buffer.format.channelCount)
        let frames = Int(buffer.frameLength)
        let format = AudioFormat(sampleRate: Int(buffer.format.sampleRate.rounded()), channelCount: channels)
        guard channels > 0, format.sampleRate > 0 else { throw SFSpeechError(.unexpectedAudioFormat, detail: "\(buffer.format)") }
        var samples = [Float](repeating: 0, count: frames * channels)
        let interleaved = buffer.format.isInterleaved
        func copy<T>(_ data: UnsafePointer<UnsafeMutablePointer<T>>, _ value: (T) -> Float) {
            for channel in 0..<channels {
                let source = interleaved ? data[0] : data[channel]
                let step = interleaved ? channels : 1
                let offset = interleaved ? channel : 0
                for frame in 0..<frames { samples[frame * channels + channel] = value(source[frame * step + offset]) }
            }
        }
        if let data = buffer.floatChannelData {
            copy(data) { $0 }
        } else if let data = buffer.int16ChannelData {
            copy(data) { Float($0) / 32_768 }
        } else if let data = buffer.int32ChannelData {
            copy(data) { Float(Double($0) / 2_147_483_648) }
        } else {
            throw SFSpeechError(.unexpectedAudioFormat, detail: "\(buffer.format)")
        }
        return AudioBuffer(samples: samples, format: format, startTime: 0)
    }
}
