import AuralAudio

// The audio types AuralKit's API shows, named in AuralKit so that `import AuralKit` is enough to use them. Each is
// the AuralAudio type itself, not a copy; the rest of AuralAudio (converters, file readers, device lists) stays in
// AuralAudio, for apps that `import AuralAudio`.

/// Anything that delivers audio to a session: a microphone, the machine's output, a file, or in tests a list of
/// buffers (see `AuralAudio.AudioSource`).
public typealias AudioSource = AuralAudio.AudioSource

/// A run of interleaved `Float` samples with its format and start time, as an `AudioSource` delivers it
/// (see `AuralAudio.AudioBuffer`).
public typealias AudioBuffer = AuralAudio.AudioBuffer

/// The sample rate and channel count of an `AudioBuffer` (see `AuralAudio.AudioFormat`).
public typealias AudioFormat = AuralAudio.AudioFormat

/// The input being recorded: its name, channels and sample rate, published when it changes
/// (see `AuralAudio.AudioInputInfo`).
public typealias AudioInputInfo = AuralAudio.AudioInputInfo

/// Which playback system-audio capture records: the default output, a named output, or one application
/// (`AuralAudio.PulseSystemAudioSource.Target`); the
/// capture's other option, leaving this process's own playback out, is a `Bool`.
public typealias SystemAudioTarget = AuralAudio.PulseSystemAudioSource.Target
