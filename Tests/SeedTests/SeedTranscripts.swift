import AVFoundation
import Foundation
import Speech
import TestSupport

/// What the seeds' tests compare against: the offline engine's text of a recording, through the Speech framework's
/// file path (`SpeechAnalyzer(inputAudioFile:…)`).
enum SeedTranscripts {
    /// The final text of `recording` transcribed as a file by a `SpeechTranscriber` of `en-US`.
    static func fileText(_ recording: String) async throws -> String {
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .offlineTranscription)
        let collector = Task {
            var text = ""
            for try await result in transcriber.results where result.isFinal { text += String(result.text.characters) }
            return text
        }
        let file = try AVAudioFile(forReading: Fixtures.audio(recording))
        _ = try await SpeechAnalyzer(inputAudioFile: file, modules: [transcriber], finishAfterFile: true)
        return try await collector.value
    }
}
