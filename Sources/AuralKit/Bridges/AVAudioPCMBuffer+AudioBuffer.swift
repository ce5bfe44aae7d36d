import AVFoundation
import AuralAudio

extension AVAudioPCMBuffer {
    /// A float32 interleaved buffer holding a copy of an `AudioBuffer`'s samples, in its rate and channel count;
    /// nil for an empty buffer or a format with no channels.
    convenience init?(_ buffer: AudioBuffer) {
        guard buffer.frameCount > 0,
            let format = AVAudioFormat(
                commonFormat: .pcmFormatFloat32, sampleRate: Double(buffer.format.sampleRate),
                channels: AVAudioChannelCount(buffer.format.channelCount), interleaved: true)
        else { return nil }
        self.init(pcmFormat: format, frameCapacity: AVAudioFrameCount(buffer.frameCount))
        storeInterleaved(buffer.samples, at: 0)
        frameLength = AVAudioFrameCount(buffer.frameCount)
    }
}
