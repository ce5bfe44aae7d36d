import Foundation
import Speech

extension SpeechSession {
    /// Whether voice activation is configured: the session then decodes only what the speech detector hears as
    /// speech, and each end of speech makes everything pending final.
    public var isVoiceActivationEnabled: Bool { speechDetector != nil }

    /// Turns voice activation on from the next start: a `SpeechDetector` joins the run's analyzer. Silero VAD (in the
    /// session's model manager's cache, where `scripts/setup` installs it)
    /// listens to all audio, silence never reaches the model (so a quiet room costs almost nothing and Whisper
    /// cannot invent words in it), ~300 ms before each speech start is kept so the first word is whole, and each end
    /// of speech is a finalize point. `SpeechDetector.DetectionOptions` documents what each sensitivity level means.
    ///
    /// With `reportResults`, `speechDetectorResultsStream` is set at once and yields, for each stretch of audio, a
    /// result saying whether it held speech (a speech span once when it is confirmed and again when it ends).
    public func configureVoiceActivation(
        detectionOptions: SpeechDetector.DetectionOptions = .init(sensitivityLevel: .medium), reportResults: Bool = false
    ) {
        detectorResults?.finish()
        detectorResults = nil
        speechDetectorResultsStream = nil
        speechDetector = SpeechDetector(detectionOptions: detectionOptions, reportResults: reportResults)
        if reportResults {
            let (stream, continuation) = AsyncStream<SpeechDetector.Result>.makeStream()
            speechDetectorResultsStream = stream
            detectorResults = continuation
        }
    }

    /// Turns voice activation off from the next start (every sound is decoded again) and ends the detector stream.
    public func disableVoiceActivation() {
        speechDetector = nil
        detectorResults?.finish()
        detectorResults = nil
        speechDetectorResultsStream = nil
        isSpeechDetected = true
    }

    /// Forwards the run's detector results to `speechDetectorResultsStream` (when reported) and keeps
    /// `isSpeechDetected` current on the main actor while `run` is the current run.
    func forwardDetection(of detector: SpeechDetector, for run: SessionRun) {
        let continuation = detectorResults
        detector.observeActivity { [weak self, weak run] hearing in
            Task { @MainActor [weak self, weak run] in
                guard let self, let run, self.current === run else { return }
                self.isSpeechDetected = hearing
            }
        }
        Task {
            for try await result in detector.results { continuation?.yield(result) }
        }
    }
}
