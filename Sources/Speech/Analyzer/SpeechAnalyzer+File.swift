import AVFoundation
import AuralWhisper
import CoreMedia
import Foundation

extension SpeechAnalyzer {
    /// Analyses `audioFile` in a task of the analyzer's own and returns at once; with `finishAfterFile`, the session
    /// finishes after it (as `finalizeAndFinishThroughEndOfInput()`), else it waits for more input. The file's audio
    /// follows the input taken before it.
    ///
    /// The transcribers hear the whole file through the offline engine (30-second windows, temperature fallback,
    /// previous-text conditioning), with the accuracy of `aural transcribe`, and publish one final result per
    /// segment. The file is read from its start, whatever its `framePosition`.
    public func start(inputAudioFile audioFile: AVAudioFile, finishAfterFile: Bool = false) async throws {
        try checkNotFinished()
        replaceInputTask {
            _ = try await self.analyzeFile(audioFile)
            if finishAfterFile { try await self.finishAnalysis() }
        }
    }

    /// Analyses `audioFile` (as `start(inputAudioFile:finishAfterFile:)` does) and returns once its results are
    /// published, with the time of the end of its audio (nil for a file without audio).
    public func analyzeSequence(from audioFile: AVAudioFile) async throws -> CMTime? {
        try checkNotFinished()
        do {
            return try await analyzeFile(audioFile)
        } catch {
            throw fail(error)
        }
    }

    /// Transcribes the file with each transcriber, its times offset by the audio taken before it.
    func analyzeFile(_ audioFile: AVAudioFile) async throws -> CMTime? {
        try await analyzeFile(at: audioFile.url, duration: Double(audioFile.length) / audioFile.fileFormat.sampleRate, progress: nil)
    }

    /// Analyses the file at `url` (anything FFmpeg reads) as `analyzeSequence(from:)` does, calling `progress` with
    /// the fraction of the file's audio transcribed so far (`AuralKit`'s file transcription), and returns the time of
    /// its end (nil for a file without audio). When the calling task is cancelled, it stops at the next decoded token,
    /// dropping the window under way; the results published until then stay.
    package func analyzeFile(at url: URL, progress: (@Sendable (Double) -> Void)?) async throws -> CMTime? {
        try checkNotFinished()
        do {
            return try await analyzeFile(at: url, duration: 0, progress: progress)
        } catch {
            throw fail(error)
        }
    }

    private func analyzeFile(at url: URL, duration seconds: Double, progress: (@Sendable (Double) -> Void)?) async throws -> CMTime? {
        if let pipeline { await (try await pipeline.value).flush() }
        let set = try ModuleSet(modules)
        let offset = Double(consumedSamples) / Double(AnalyzerAudio.sampleRate)
        let prompt = AnalysisContext.initialPrompt(from: contextValue.contextualStrings)
        var fileSamples = 0
        for transcriber in set.transcribers {
            let end = try await Self.transcribe(
                url, with: transcriber, prompt: prompt, offset: offset, after: finalizedThrough,
                retention: options?.modelRetention.modelRetention, progress: progress)
            fileSamples = max(fileSamples, end)
        }
        if seconds.isFinite { fileSamples = max(fileSamples, Int((seconds * Double(AnalyzerAudio.sampleRate)).rounded())) }
        guard fileSamples > 0 else { return nil }
        consumedSamples += fileSamples
        noteFinalized(consumedTime)
        return consumedTime
    }

    /// Runs the offline engine on the file for one transcriber and publishes each segment as a final result;
    /// returns the samples of 16 kHz audio the engine heard.
    private static func transcribe(
        _ url: URL, with transcriber: any TranscribingModule, prompt: String?, offset: Double, after finalized: CMTime,
        retention: ModelRetention?, progress: (@Sendable (Double) -> Void)?
    ) async throws -> Int {
        let settings = transcriber.settings
        let loaded = try await ModelAssets.load(settings, retention: retention)
        do {
            var options = DecodingOptions(language: loaded.language, wordTimestamps: true)
            options.initialPrompt = prompt
            if settings.reportingOptions.contains(.alternativeTranscriptions) { options.beamSize = max(options.beamSize, 2) }
            var finalizedThrough = finalized
            var first = finalized == .zero
            var duration = 0.0
            let events = Transcriber(model: loaded.model).events(reading: { try AudioFileSamples(url: url) }, options: options)
            for try await event in events {
                switch event {
                case .info(let info): duration = info.duration
                case .progress(let fraction): progress?(fraction)
                case .segment(let segment):
                    var words = (segment.words ?? []).map(TimedWord.init).map { $0.shifted(by: offset) }
                    guard !words.isEmpty else { continue }
                    if first {
                        words[0].text = String(words[0].text.drop(while: { $0 == " " }))
                        first = false
                    }
                    let text = TranscriptText.attributed(words, options: settings.attributeOptions, etiquette: settings.etiquette)
                    let start = CMTime(seconds: segment.start + offset, preferredTimescale: 16_000)
                    let end = max(CMTime(seconds: segment.end + offset, preferredTimescale: 16_000), start, finalizedThrough)
                    finalizedThrough = end
                    transcriber.deliver(SpeechTranscriber.Result(
                        alternatives: [text], range: CMTimeRange(start: min(start, end), end: end), resultsFinalizationTime: end))
                }
            }
            await loaded.release()
            return Int((duration * Double(AnalyzerAudio.sampleRate)).rounded())
        } catch {
            await loaded.release()
            throw error
        }
    }
}
