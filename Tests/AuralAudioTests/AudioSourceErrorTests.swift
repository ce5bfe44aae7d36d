import AuralAudio
import Foundation
import Testing

@Suite("AudioSourceError")
struct AudioSourceErrorTests {
    static let allCases: [AudioSourceError] = [
        .fileNotFound(path: "/tmp/a.wav"),
        .unreadableFile(path: "/tmp/a.wav", reason: "Permission denied."),
        .emptyFile(path: "/tmp/a.wav"),
        .notAudio(path: "/tmp/a.mp3", reason: "It looks like an MP3 file, not RIFF/WAVE."),
        .truncated(path: "/tmp/a.wav"),
        .invalidHeader(path: "/tmp/a.wav", reason: "The header says the audio has 0 channels."),
        .unsupportedEncoding(path: "/tmp/a.wav", format: "IMA ADPCM (format code 0x0011)"),
        .conversionFailed(reason: "The input has 65 channels; libswresample takes 1 to 64."),
        .noAudioTrack(path: "/tmp/a.mp4", streams: ["video"]),
        .corruptFile(path: "/tmp/a.m4a", reason: "It looks like QuickTime / MOV, but FFmpeg could not read its header."),
        .unsupportedCodec(path: "/tmp/a.mkv", codec: "dts"),
    ]

    @Test("every case has a description, a failure reason and a recovery suggestion", arguments: allCases)
    func everyCaseIsExplained(_ error: AudioSourceError) {
        #expect(error.errorDescription?.isEmpty == false)
        #expect(error.failureReason?.isEmpty == false)
        #expect(error.recoverySuggestion?.isEmpty == false)
    }

    @Test("the description names the file", arguments: allCases)
    func descriptionNamesTheFile(_ error: AudioSourceError) {
        let description = error.errorDescription ?? ""
        switch error {
        case .conversionFailed:
            #expect(!description.contains("/tmp"))
        default:
            #expect(description.contains("/tmp/a."))
        }
    }

    @Test("the evidence carried by a case appears in its messages")
    func evidenceIsShown() {
        let error = AudioSourceError.unsupportedEncoding(path: "/tmp/a.wav", format: "IMA ADPCM (format code 0x0011)")
        #expect(error.errorDescription == "The WAV file /tmp/a.wav uses an unsupported encoding: IMA ADPCM (format code 0x0011).")
        let reasoned = AudioSourceError.notAudio(path: "/tmp/a.mp3", reason: "It looks like an MP3 file, not RIFF/WAVE.")
        #expect(reasoned.failureReason == "It looks like an MP3 file, not RIFF/WAVE.")
    }
}
