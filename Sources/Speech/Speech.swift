// Speech for Linux: Apple's Speech framework API (`SpeechAnalyzer`, its modules `SpeechTranscriber`,
// `DictationTranscriber` and `SpeechDetector`, `AnalyzerInput`, `AssetInventory`, `AnalysisContext`) over this
// project's engine: Whisper for transcription, Silero for voice activity, models from Hugging Face.
// docs/speech-framework.md maps each type to what does the work and lists what differs from Apple.
//
// As Apple's module does, it re-exports AVFoundation, CoreMedia and Foundation: Apple's sample code uses
// `AVAudioFormat` with only `import Speech`.
@_exported import AVFoundation
@_exported import CoreMedia
@_exported import Foundation
