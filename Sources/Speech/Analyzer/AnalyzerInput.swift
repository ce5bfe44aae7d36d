import AVFoundation
import CoreMedia

/// Audio for a `SpeechAnalyzer`, as in Apple's Speech framework: a buffer, and optionally where it starts in the
/// input's timeline.
///
/// The buffer may be in any linear PCM format (float32, int16 or int32; any rate; any channel count; interleaved or
/// not), and the format may change from one input to the next: the analyzer converts it to what its modules take.
/// (Apple's analyzer performs no conversion and documents that the format must be one the modules support; code that
/// converts first, with `bestAvailableAudioFormat(compatibleWith:)`, works the same here.)
public struct AnalyzerInput: @unchecked Sendable {
    /// The audio.
    public let buffer: AVAudioPCMBuffer
    /// Where the buffer starts in the input's timeline; nil when it follows the previous buffer (or starts at zero).
    public let bufferStartTime: CMTime?

    /// Audio that follows the previous input (or starts at time zero).
    public init(buffer: AVAudioPCMBuffer) {
        self.init(buffer: buffer, bufferStartTime: nil)
    }

    /// Audio that starts at `bufferStartTime`, which may leave a gap after the previous input (the analyzer hears
    /// the gap as silence, so result times account for it) but must not overlap or precede it.
    public init(buffer: AVAudioPCMBuffer, bufferStartTime: CMTime?) {
        self.buffer = buffer
        self.bufferStartTime = bufferStartTime
    }
}
