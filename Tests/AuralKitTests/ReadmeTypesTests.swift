import Foundation
import Testing

@testable import AuralKit
@testable import Speech

/// The README's examples that need only the result and error types, compiled against them. `startTranscribing()`
/// is replaced by a stream built here; everything inside the loops is the README's code, `run.text` included (a run
/// of a transcription carries its word, see `SpeechAttributes.RunTextAttribute`).
@Suite("README types")
struct ReadmeTypesTests {
    static func stream(
        _ results: [SpeechTranscriber.Result], failing error: (any Error)? = nil
    )
        -> AsyncThrowingStream<SpeechTranscriber.Result, Error>
    {
        AsyncThrowingStream { continuation in
            for result in results { continuation.yield(result) }
            continuation.finish(throwing: error)
        }
    }

    static let result = SpeechTranscriber.Result(
        alternatives: [
            TranscriptText.attributed(
                [
                    TimedWord(text: " Fail", start: 0.5, end: 0.8, confidence: 0.9),
                    TimedWord(text: " better.", start: 0.8, end: 1.2, confidence: 0.7),
                ],
                options: Set(SpeechTranscriber.ResultAttributeOption.allCases), etiquette: false),
            AttributedString(" Fail bitter."),
        ],
        range: CMTimeRange(samples: 0..<19_200), resultsFinalizationTime: CMTime(sample: 19_200))

    @Test("Error Handling: the catch pattern sees modelDownloadFailed with its underlying error")
    func errorHandling() async {
        let thrown = SpeechSessionError.from(
            SpeechModelError.modelDownloadFailed(
                model: "base", cause: .httpStatus(code: 503, url: "https://huggingface.co/x")))
        var seen: String?
        do {
            let stream = Self.stream([], failing: thrown)
            for try await segment in stream {
                // Use the transcription
                _ = segment
            }
        } catch let error as SpeechSessionError {
            switch error {
            case .modelDownloadNoInternet:
                // Prompt the user to reconnect before retrying
                seen = "no internet"
            case .modelDownloadFailed(let underlying):
                // Inspect `underlying` for more detail
                seen = underlying?.localizedDescription
            default:
                break
            }
        } catch {
            // Handle unexpected errors
            seen = "unexpected"
        }
        #expect(seen == "The model \"base\" could not be downloaded.")
    }

    @Test("Working with Results: plain text, timing, confidence and alternatives")
    func workingWithResults() async throws {
        var lines: [String] = []
        let stream = Self.stream([Self.result])
        for try await result in stream {
            // Get plain text
            let plainText = String(result.text.characters)
            lines.append(plainText)

            // Access timing information
            for run in result.text.runs {
                if let audioRange = run.audioTimeRange {
                    let startTime = audioRange.start.seconds
                    let endTime = audioRange.end.seconds
                    lines.append("\(run.text): \(startTime)s - \(endTime)s")
                }

                // Access confidence scores (0.0 to 1.0)
                if let confidence = run.transcriptionConfidence {
                    lines.append("Confidence: \(confidence)")
                }
            }

            // Access alternative transcriptions
            for (index, alternative) in result.alternatives.enumerated() {
                lines.append("Alternative \(index): \(String(alternative.characters))")
            }
            #expect(result.isFinal)
        }
        #expect(
            lines == [
                " Fail better.", " Fail: 0.5s - 0.8s", "Confidence: 0.9", " better.: 0.8s - 1.2s", "Confidence: 0.7",
                "Alternative 0:  Fail better.", "Alternative 1:  Fail bitter.",
            ])
    }

    @Test("Partial Results: finals accumulate, a volatile result replaces the partial text")
    func partialResults() async throws {
        var finalText: AttributedString = ""
        var partialText: AttributedString = ""
        let volatile = SpeechTranscriber.Result(
            alternatives: [AttributedString(" Try again.")], range: CMTimeRange(samples: 19_200..<40_000),
            resultsFinalizationTime: CMTime(sample: 19_200))
        for try await result in Self.stream([Self.result, volatile]) {
            if result.isFinal {
                finalText += result.text
                partialText = ""
            } else {
                partialText = result.text
            }
        }
        #expect(String((finalText + partialText).characters) == " Fail better. Try again.")
    }
}
