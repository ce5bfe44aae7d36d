import AuralAudio
import AuralKit
import Foundation
import Testing

/// The library's errors speak to apps: their texts name API calls and settings, never the `aural` command or its
/// flags, which `aural` adds itself when it reports an error.
@Suite("Library error texts")
struct LibraryErrorTextTests {
    /// Every case of the errors AuralKit and AuralAudio throw, with evidence filled in.
    static let errors: [any LocalizedError] = modelErrors + deviceErrors + sourceErrors

    static let modelErrors: [any LocalizedError] = SpeechModelErrorTests.cases

    static let deviceErrors: [any LocalizedError] = [
        AudioDeviceError.noSoundServer(server: "unix:/run/user/1000/pulse/native", reason: "Connection refused"),
        AudioDeviceError.deviceNotFound(name: "alsa_input.usb-mic"),
        AudioDeviceError.deviceDisappeared(name: "alsa_input.usb-mic"),
        AudioDeviceError.connectionLost(reason: "Connection terminated."),
        AudioDeviceError.streamFailed(device: "alsa_input.usb-mic", reason: "Invalid argument"),
    ]

    static let sourceErrors: [any LocalizedError] = [
        AudioSourceError.fileNotFound(path: "/tmp/a.wav"),
        AudioSourceError.unreadableFile(path: "/tmp/a.wav", reason: "Permission denied."),
        AudioSourceError.emptyFile(path: "/tmp/a.wav"),
        AudioSourceError.notAudio(path: "/tmp/a.mp3", reason: "It looks like an MP3 file."),
        AudioSourceError.truncated(path: "/tmp/a.wav"),
        AudioSourceError.invalidHeader(path: "/tmp/a.wav", reason: "0 channels."),
        AudioSourceError.unsupportedEncoding(path: "/tmp/a.wav", format: "IMA ADPCM"),
        AudioSourceError.conversionFailed(reason: "65 channels."),
        AudioSourceError.noAudioTrack(path: "/tmp/a.mp4", streams: ["video"]),
        AudioSourceError.corruptFile(path: "/tmp/a.m4a", reason: "No header."),
        AudioSourceError.unsupportedCodec(path: "/tmp/a.mkv", codec: "dts"),
    ]

    @Test("no description, reason or suggestion names a command-line flag (--) or the aural command")
    func noCommandLineTerms() {
        #expect(Self.errors.count == SpeechModelErrorTests.cases.count + 5 + 11)
        for error in Self.errors {
            for text in [error.errorDescription, error.failureReason, error.recoverySuggestion] {
                let text = text ?? ""
                #expect(!text.contains("--"), "\(error): \(text)")
                #expect(!text.contains("aural "), "\(error): \(text)")
            }
        }
    }
}
