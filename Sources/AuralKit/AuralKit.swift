// AuralKit: on-device speech to text with Whisper, for apps.
//
// AuralKit's own types are the API: models (`ModelManager`, `ModelCatalog`, `DeviceCapabilities`), transcript
// writers, and the bridges between the two modules below it. The audio types an app passes in or gets back are
// named here too (AudioTypes.swift), so `import AuralKit` is enough for them.
//
// The modules below are libraries of their own, imported by name when an app wants them directly:
// `AuralWhisper` (the engine: `WhisperModel`, `Transcriber`, `DecodingOptions`, `Segment`) and `AuralAudio`
// (sources, converters, devices). AuralKit does not re-export them.
