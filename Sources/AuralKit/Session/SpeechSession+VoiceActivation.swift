import AuralVAD
import AuralWhisper
import Foundation

extension SpeechSession {
    /// Whether voice activation is configured: the session then decodes only what the speech detector hears as
    /// speech, and each end of speech makes everything pending final.
    public var isVoiceActivationEnabled: Bool { speechDetector != nil }

    /// Turns voice activation on from the next start: Silero VAD (installed by `scripts/setup` into the model cache)
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

    /// Loads the voice activity model from the model cache.
    /// - Throws: `SpeechSessionError.modelNotFound` or `.modelCorrupt`, saying to run `scripts/setup`.
    nonisolated static func loadVoiceActivityModel() throws -> SileroVAD {
        try SileroVAD(contentsOf: SileroVAD.defaultModelURL)
    }

    /// What the inference thread calls with the detector's spans: they go to the results stream (when reported) and
    /// set `isSpeechDetected` on the main actor, while `run` is the current run.
    func detectionReporter(for run: SessionRun) -> @Sendable ([VoiceActivityGate.Span]) -> Void {
        let continuation = detectorResults
        return { [weak self] spans in
            for span in spans {
                let range = CMTimeRange(start: CMTime(sample: span.range.lowerBound), end: CMTime(sample: span.range.upperBound))
                let settled = CMTime(sample: span.isFinished ? span.range.upperBound : span.range.lowerBound)
                continuation?.yield(SpeechDetector.Result(range: range, resultsFinalizationTime: settled, speechDetected: span.isSpeech))
            }
            guard let last = spans.last else { return }
            let hearing = last.isSpeech && !last.isFinished
            Task { @MainActor [weak self, weak run] in
                guard let self, let run, self.current === run else { return }
                self.isSpeechDetected = hearing
            }
        }
    }
}
