// AuralKit re-exports the engine (AuralWhisper) and the audio layer (AuralAudio), so that apps and the `aural`
// command import one module.
@_exported import AuralAudio
@_exported import AuralWhisper
