import AuralKit
import Foundation
import TestSupport
import Testing

/// The AuralKit README's examples, each as written there (SwiftUI lines aside, an `await` or `try` added where Linux
/// needs one), run against the private daemon's virtual microphone while a real recording plays into it. `print` is
/// this suite's own, so each test can check what the example printed.
extension LiveMicrophone {
@MainActor
@Suite("README examples", .serialized, .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct ReadmeExamplesTests {
    let printed = PrintLog()

    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
        printed.append(items.map { "\($0)" }.joined(separator: separator))
    }

    /// Plays the ten-second recording into the virtual microphone, then waits for it to end and a moment more.
    func speak() async throws {
        let player = try VirtualMicrophone.play(Fixtures.audio("beckett.wav"), delay: 0.5)
        while player.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .seconds(1))
    }

    @Test("Quick Start")
    func quickStart() async throws {
        // Create a speech session with your preferred locale
        let session = SpeechSession(locale: .current)

        let streamTask = Task {
            do {
                // Start the async stream
                let stream = session.startTranscribing()
                for try await result in stream {
                    if result.isFinal {
                        print("Final: \(result.text)")
                    } else {
                        print("Partial: \(result.text)")
                    }
                }
            } catch {
                print("Transcription failed: \(error)")
            }
        }

        try await speak()

        // Later, when you want to stop capturing audio
        await Task {
            await session.stopTranscribing()
            await streamTask.value
        }.value

        let lines = printed.lines
        #expect(lines.contains { $0.hasPrefix("Partial: ") })
        #expect(lines.contains { $0.hasPrefix("Final: ") })
        #expect(!lines.contains { $0.hasPrefix("Transcription failed") }, "\(lines)")
    }

    @Test("Simple Transcription: plain text and each run's start time")
    func simpleTranscription() async throws {
        // Or specify a locale
        let session = SpeechSession(locale: Locale(identifier: "en-US"))

        let streamTask = Task {
            do {
                // Start transcribing
                let stream = session.startTranscribing()
                for try await result in stream {
                    let attributedText = result.text

                    // Access the plain text
                    let plainText = String(attributedText.characters)
                    print(plainText)

                    // Access timing metadata for each word/phrase
                    for run in attributedText.runs {
                        if let timeRange = run.audioTimeRange {
                            print("Text: \(run.text), Start: \(timeRange.start.seconds)s")
                        }
                    }
                }
            } catch {
                print("Transcription failed: \(error.localizedDescription)")
            }
        }

        try await speak()

        // Stop when needed
        await Task {
            await session.stopTranscribing()
            await streamTask.value
        }.value

        let starts = printed.lines.filter { $0.hasPrefix("Text: ") }
        #expect(!starts.isEmpty)
        #expect(!printed.lines.contains { $0.hasPrefix("Transcription failed") })
    }

    @Test("Partial Results: final text accumulates, partial text is replaced")
    func partialResults() async throws {
        let session = SpeechSession()
        var finalText: AttributedString = ""
        var partialText: AttributedString = ""
        var partialsSeen = 0
        let streamTask = Task {
            for try await result in session.startTranscribing() {
                if result.isFinal {
                    finalText += result.text
                    partialText = ""
                } else {
                    partialText = result.text
                    partialsSeen += 1
                }
            }
        }
        try await speak()
        await session.stopTranscribing()
        try await streamTask.value
        #expect(partialsSeen > 0)
        #expect(partialText == "")
        #expect(WordErrorRate.words(String(finalText.characters)).count >= 10)
    }

    @Test("Working with Results: times, confidences, alternatives")
    func workingWithResults() async throws {
        let session = SpeechSession()
        let collector = Task {
            let stream = session.startTranscribing()
            for try await result in stream {
                // Get plain text
                let plainText = String(result.text.characters)
                _ = plainText

                // Access timing information
                for run in result.text.runs {
                    if let audioRange = run.audioTimeRange {
                        let startTime = audioRange.start.seconds
                        let endTime = audioRange.end.seconds
                        print("\(run.text): \(startTime)s - \(endTime)s")
                    }

                    // Access confidence scores (0.0 to 1.0)
                    if let confidence = run.transcriptionConfidence {
                        print("Confidence: \(confidence)")
                    }
                }

                // Access alternative transcriptions
                for (index, alternative) in result.alternatives.enumerated() {
                    print("Alternative \(index): \(String(alternative.characters))")
                }
            }
        }
        try await speak()
        await session.stopTranscribing()
        try await collector.value
        let confidences = printed.lines.compactMap { $0.hasPrefix("Confidence: ") ? Double($0.dropFirst(12)) : nil }
        #expect(!confidences.isEmpty)
        #expect(confidences.allSatisfy { $0 > 0 && $0 <= 1 })
        #expect(printed.lines.contains { $0.hasPrefix("Alternative 0: ") })
    }

    @Test("Status Updates and Monitoring Model Downloads")
    func statusAndDownloads() async throws {
        let session = SpeechSession(locale: Locale(identifier: "en-US"))

        let statusTask = Task {
            for await status in session.statusStream {
                print("Session status:", status)
            }
        }

        if let progress = await session.modelDownloadProgress {
            print("Downloading model: \(progress.fractionCompleted * 100)%")
        }

        let stream = session.startTranscribing()
        let consumer = Task { for try await _ in stream {} }
        try await speak()
        await session.stopTranscribing()
        try await consumer.value
        try await Task.sleep(for: .milliseconds(100))
        statusTask.cancel()
        let statuses = printed.lines.filter { $0.hasPrefix("Session status:") }
        // The watching task subscribes when it first runs: before the start (idle first) or just after (preparing).
        #expect(Array(statuses.drop { $0 == "Session status: idle" }) == [
            "Session status: preparing", "Session status: transcribing", "Session status: stopping", "Session status: idle",
        ])
        // The model is installed, so nothing was downloading.
        #expect(!printed.lines.contains { $0.hasPrefix("Downloading model") })
    }

    @Test("Tracking Audio Input Changes")
    func audioInputChanges() async throws {
        let session = SpeechSession()
        let watcher = Task {
            for await info in session.audioInputConfigurationStream {
                guard let info else { continue }
                print("Active input:", info.portName)
                break
            }
        }
        await watcher.value
        #expect(printed.lines == ["Active input: VirtualMicrophone"])
    }

    @Test("Error Handling: the catch clauses compile, and a healthy session throws nothing")
    func errorHandling() async throws {
        let session = SpeechSession()
        var caught: SpeechSessionError?
        let task = Task {
            do {
                let stream = session.startTranscribing()
                for try await segment in stream {
                    // Use the transcription
                    _ = segment
                }
            } catch let error as SpeechSessionError {
                caught = error
                switch error {
                case .modelDownloadNoInternet:
                    // Prompt the user to reconnect before retrying
                    break
                case .modelDownloadFailed(let underlying):
                    // Inspect `underlying` for more detail
                    _ = underlying
                default:
                    break
                }
            } catch {
                // Handle unexpected errors
            }
        }
        try await Task.sleep(for: .seconds(2))
        await session.stopTranscribing()
        await task.value
        #expect(caught == nil)
    }

    @Test("Voice Activation: detector results, and speech made final at its end, before any stop")
    func voiceActivation() async throws {
        let session = SpeechSession()
        session.configureVoiceActivation(
            detectionOptions: .init(sensitivityLevel: .medium),
            reportResults: true
        )

        let detectorTask = Task {
            if let detectorStream = session.speechDetectorResultsStream {
                for await detection in detectorStream {
                    print("Speech detected:", detection.speechDetected)
                }
            }
        }

        let finals = FinalCount()
        let transcriptionTask = Task {
            for try await result in session.startTranscribing() {
                // Handle results
                if result.isFinal { finals.add(String(result.text.characters)) }
            }
        }

        try await speak()
        try await Task.sleep(for: .seconds(1))
        // The pause after the recording ended the speech, so its words are final before the stop.
        let beforeStop = finals.text
        await session.stopTranscribing()
        try await transcriptionTask.value
        session.disableVoiceActivation()
        await detectorTask.value

        #expect(printed.lines.contains("Speech detected: true"), "\(printed.lines)")
        #expect(printed.lines.contains("Speech detected: false"), "\(printed.lines)")
        #expect(WordErrorRate.words(beforeStop).starts(with: ["ever", "tried"]), "\(beforeStop)")
        #expect(WordErrorRate.words(beforeStop).contains("better"), "\(beforeStop)")
    }

    @Test("Device Capabilities")
    func deviceCapabilities() async {
        let capabilities = await SpeechSession.deviceCapabilities()

        if capabilities.supportsDictationTranscriber {
            // Offer a dictation-optimized mode when supported.
        }

        let supportedIdentifiers = capabilities.supportedLocales.map { $0.identifier(.bcp47) }
        print("Supports up to \(capabilities.maxReservedLocales) reserved locales: \(supportedIdentifiers)")

        let dictationIdentifiers = capabilities.supportedDictationLocales.map { $0.identifier(.bcp47) }
        print("Dictation transcriber supports: \(dictationIdentifiers)")

        #expect(capabilities.supportsSpeechTranscriber)
        #expect(supportedIdentifiers.contains("en"))
        #expect(supportedIdentifiers.contains("de"))
        #expect(printed.lines.count == 2)
    }
}
}

/// Lines a test printed.
final class PrintLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

/// Final texts a session delivered, read from another task.
final class FinalCount: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    func add(_ text: String) { lock.withLock { texts.append(text) } }
    var text: String { lock.withLock { texts.joined() } }
}
