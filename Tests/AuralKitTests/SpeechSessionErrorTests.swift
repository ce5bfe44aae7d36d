import Foundation
import Testing

@testable import AuralKit
@testable import Speech

/// An error that is not `Equatable`, for the equality rules of underlying errors.
private struct PlainError: Error, Sendable, CustomStringConvertible {
    let detail: String
    var description: String { detail }
}

/// An `Equatable` error whose `==` ignores `note`, to tell `==` from a comparison of reflections.
private struct LooseError: Error, Sendable, Equatable {
    let id: Int
    let note: String
    static func == (lhs: LooseError, rhs: LooseError) -> Bool { lhs.id == rhs.id }
}

@Suite("SpeechSessionError")
struct SpeechSessionErrorTests {
    static let file = URL(fileURLWithPath: "/tmp/missing.wav")
    static let underlying = SpeechModelError.modelReserved(name: "tiny.en")

    /// One value of every case.
    static let allCases: [SpeechSessionError] = [
        .microphonePermissionDenied,
        .unsupportedLocale(Locale(identifier: "tlh")),
        .recognitionStreamSetupFailed,
        .audioConversionFailed(nil),
        .audioConversionFailed(PlainError(detail: "sample rate 0")),
        .audioFileNotFound(file),
        .audioFileInvalidURL(URL(string: "https://example.com/a.wav")!),
        .audioFileOutsideAllowedDirectories(file),
        .audioFileUnsupportedFormat("codec xyz"),
        .audioFileTooLong(maximum: 60, actual: 61.25),
        .audioFileReadFailed(nil),
        .audioFileReadFailed(underlying),
        .modelDownloadNoInternet,
        .modelDownloadFailed(nil),
        .modelDownloadFailed(underlying),
        .modelReservationFailed(Locale(identifier: "de"), underlying),
        .contextSetupFailed(PlainError(detail: "too long")),
        .audioDeviceUnavailable(name: "alsa_input.usb-mic"),
        .soundServerUnavailable(reason: "Connection refused"),
        .modelNotFound(name: "small", reason: "No model folder exists at /x/small."),
        .modelCorrupt(path: "/x/tiny.en/model.bin", reason: "truncated"),
        .insufficientDiskSpace(needed: 150_000_000, available: 1_000),
        .transcriptionFailed(reason: "OpenBLAS could not be opened"),
    ]

    @Test(
        "every case has a description, a failure reason and a recovery suggestion, none naming a CLI flag",
        arguments: allCases)
    func texts(error: SpeechSessionError) throws {
        let texts = [error.errorDescription, error.failureReason, error.recoverySuggestion]
        for text in texts {
            let text = try #require(text)
            #expect(!text.trimmingCharacters(in: .whitespaces).isEmpty)
            #expect(!text.contains("--"), "\(text)")
            #expect(!text.contains("aural "), "library texts do not send users to the CLI: \(text)")
        }
        #expect(error.localizedDescription == error.errorDescription)
    }

    @Test("descriptions carry the evidence")
    func evidence() {
        #expect(
            SpeechSessionError.audioFileTooLong(maximum: 60, actual: 61.25).errorDescription
                == "Audio file duration (61.25 seconds) exceeds the allowed limit of 60.00 seconds.")
        #expect(
            SpeechSessionError.audioFileNotFound(Self.file).errorDescription
                == "Audio file not found at path /tmp/missing.wav.")
        #expect(
            SpeechSessionError.modelDownloadFailed(Self.underlying).errorDescription
                == "Speech model download failed: The model \"tiny.en\" is in use.")
        #expect(
            SpeechSessionError.modelDownloadFailed(Self.underlying).failureReason
                == "A running session has reserved it.")
        #expect(
            SpeechSessionError.audioFileInvalidURL(URL(string: "https://example.com/a.wav")!).failureReason?.contains(
                "'https'") == true)
        #expect(
            SpeechSessionError.soundServerUnavailable(reason: "x").recoverySuggestion?.contains("pactl info") == true)
    }

    @Test("equality compares cases and payloads, underlying errors by == or by type and reflection")
    func equality() {
        #expect(
            Self.allCases.indices.allSatisfy { i in
                Self.allCases.indices.allSatisfy { j in (Self.allCases[i] == Self.allCases[j]) == (i == j) }
            })
        #expect(
            SpeechSessionError.modelDownloadFailed(Self.underlying)
                == .modelDownloadFailed(SpeechModelError.modelReserved(name: "tiny.en")))
        #expect(
            SpeechSessionError.modelDownloadFailed(Self.underlying)
                != .modelDownloadFailed(SpeechModelError.modelReserved(name: "base")))
        #expect(
            SpeechSessionError.contextSetupFailed(PlainError(detail: "a"))
                == .contextSetupFailed(PlainError(detail: "a")))
        #expect(
            SpeechSessionError.contextSetupFailed(PlainError(detail: "a"))
                != .contextSetupFailed(PlainError(detail: "b")))
        #expect(SpeechSessionError.audioFileReadFailed(nil) != .audioFileReadFailed(Self.underlying))
        #expect(
            SpeechSessionError.contextSetupFailed(LooseError(id: 1, note: "a"))
                == .contextSetupFailed(LooseError(id: 1, note: "b")),
            "Equatable underlying errors compare with their own ==")
        #expect(
            SpeechSessionError.contextSetupFailed(LooseError(id: 1, note: "a"))
                != .contextSetupFailed(PlainError(detail: "a")))
    }
}
