// AuralKit: on-device speech to text with Whisper, for apps: `SpeechSession`, one object for live and file
// transcription, built as upstream AuralKit is on the Speech framework's layer (`SpeechAnalyzer` with its modules).
//
// The Speech layer's types (`SpeechTranscriber.Result`, `SpeechDetector`, `AnalysisContext`, `CMTime`, the models'
// `ModelManager`, …) are AuralKit's API, as on Apple's platforms, so `import AuralKit` brings them along: it
// re-exports `Speech`, which re-exports `AVFoundation` and `CoreMedia`. AuralKit's own types are the session, its
// errors, transcript writers and the audio types an app passes in (AudioTypes.swift).
//
// The engine's modules are libraries of their own, imported by name when an app wants them directly:
// `AuralWhisper` (`WhisperModel`, `Transcriber`, `DecodingOptions`, `Segment`) and `AuralAudio` (sources,
// converters, devices). AuralKit does not re-export them.
@_exported import Speech
import Foundation
