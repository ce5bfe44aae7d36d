// The long-form live transcription guide's code (../shared/seeds/003_…), as printed: its `LiveTranscription` class,
// with the article's later `consumeResults()` and the two properties it sets placed in the class. One line differs:
// the article's `for try? await result in transcriber.results` is not Swift; it reads `for await result in
// transcriber.results.untilError` (the results until the sequence ends or throws), as the article meant.
import Speech
import AVFoundation
 
final class LiveTranscription {
    private let analyzer: SpeechAnalyzer
    private let transcriber: SpeechTranscriber
    private var inputBuilder: AsyncStream<AnalyzerInput>.Continuation?
    private let engine = AVAudioEngine()
 
    init(locale: Locale) {
        self.transcriber = SpeechTranscriber(locale: locale,
                                             preset: .progressiveLiveTranscription)
        self.analyzer = SpeechAnalyzer(modules: [transcriber])
    }
 
    /// Start feeding microphone input into the analysis session.
    func start() async throws {
        // 1. Prepare a stream to hand audio to, and connect it to the analyzer
        let (stream, continuation) = AsyncStream.makeStream(of: AnalyzerInput.self)
        self.inputBuilder = continuation
        try await analyzer.start(inputSequence: stream)
 
        // 2. Wrap the raw mic buffers in AnalyzerInput and send them to the stream
        let input = engine.inputNode
        let format = input.outputFormat(forBus: 0)
        input.installTap(onBus: 0, bufferSize: 4096, format: format) { [weak self] buffer, _ in
            self?.inputBuilder?.yield(AnalyzerInput(buffer: buffer))
        }
        engine.prepare()
        try engine.start()
    }
 
    func stop() async {
        engine.stop()
        engine.inputNode.removeTap(onBus: 0)
        inputBuilder?.finish()
        // After the supply stops, close out the remaining analysis
        try? await analyzer.finalizeAndFinish()
    }

    // The article's second snippet, "Draw volatile and final results differently", and the two properties it sets.
    var finalText = ""
    var volatileText = ""

    func consumeResults() async {
        var confirmed = ""          // The confirmed body text
        for await result in transcriber.results.untilError {
            let text = String(result.text.characters)
            if result.isFinal {
                confirmed += text
                await MainActor.run {
                    self.finalText = confirmed   // Reflect only the confirmed part
                    self.volatileText = ""       // Clear the tentative placeholder
                }
            } else {
                await MainActor.run {
                    self.volatileText = text      // Shifting tentative text, faint
                }
            }
        }
    }
}

extension AsyncThrowingStream where Failure == any Error {
    /// The elements until the stream ends or throws: what the article's `for try? await` meant.
    var untilError: AsyncStream<Element> {
        AsyncStream { continuation in
            let task = Task {
                do {
                    for try await element in self { continuation.yield(element) }
                } catch {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
