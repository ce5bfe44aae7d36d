import Foundation

/// Which audio input path the session uses, accepted for source compatibility with AuralKit.
///
/// On Apple platforms it chooses between the OS 27 native input providers and `AVAudioEngine`. On Linux there is
/// one path: both cases capture through the PulseAudio API (PulseAudio, or PipeWire through pipewire-pulse) and
/// behave the same.
public enum InputProviderPreference: Equatable, Sendable {
    /// The platform's preferred path; on Linux, PulseAudio.
    case automatic
    /// The older path; on Linux, also PulseAudio.
    case legacy
}
