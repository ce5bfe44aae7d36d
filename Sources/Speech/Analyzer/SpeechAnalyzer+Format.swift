import AVFoundation
import Foundation

extension SpeechAnalyzer {
    /// The format the modules take: 16 kHz mono float32; nil when a module's model is not installed.
    public static func bestAvailableAudioFormat(compatibleWith modules: [any SpeechModule]) async -> AVAudioFormat? {
        await bestAvailableAudioFormat(compatibleWith: modules, considering: nil)
    }

    /// The format the modules take, 16 kHz mono, in int16 when `naturalFormat` is int16 (else float32); nil when a
    /// module's model is not installed.
    public static func bestAvailableAudioFormat(
        compatibleWith modules: [any SpeechModule], considering naturalFormat: AVAudioFormat?
    ) async -> AVAudioFormat? {
        for module in modules {
            if let transcriber = module as? any TranscribingModule, await !ModelAssets.isInstalled(transcriber.settings) { return nil }
        }
        if naturalFormat?.commonFormat == .pcmFormatInt16 {
            return AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: Double(AnalyzerAudio.sampleRate), channels: 1, interleaved: true)
        }
        return AnalyzerAudio.format
    }
}
