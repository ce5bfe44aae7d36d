import AVFoundation
import AuralAudio
import CoreMedia
import Foundation

extension SpeechAnalyzer {
    /// Starts analysing `inputSequence` in a task of the analyzer's own and returns at once. A sequence started
    /// before stops being read (finalize it first to be sure all of it was taken). When the sequence ends, the
    /// session goes on: start another, or finish it.
    public func start<InputSequence: AsyncSequence & Sendable>(inputSequence: InputSequence) async throws
    where InputSequence.Element == AnalyzerInput {
        try checkNotFinished()
        replaceInputTask { try await self.consume(inputSequence) }
    }

    /// Analyses `inputSequence` until it ends, and returns the time of the end of its last sample (nil when it held
    /// none). The last audio may still be in analysis: finalize to wait for its results.
    public func analyzeSequence<InputSequence: AsyncSequence & Sendable>(_ inputSequence: InputSequence) async throws -> CMTime?
    where InputSequence.Element == AnalyzerInput {
        try checkNotFinished()
        let before = consumedSamples
        do {
            try await consume(inputSequence)
        } catch {
            throw fail(error)
        }
        return consumedSamples > before ? consumedTime : nil
    }

    /// Takes every input of the sequence, in order.
    func consume<InputSequence: AsyncSequence>(_ inputSequence: InputSequence) async throws
    where InputSequence.Element == AnalyzerInput {
        for try await input in inputSequence {
            try Task.checkCancellation()
            try await ingest(input)
        }
        try await ingest(converter.flush(), startSample: nil)
    }

    /// Converts one input to 16 kHz mono and hands it to the modules.
    func ingest(_ input: AnalyzerInput) async throws {
        let audio = try AnalyzerAudio.interleaved(input.buffer)
        let samples = audio.format == .whisper ? audio.samples : try converter.convert(audio)
        let start = input.bufferStartTime.map { Int(($0.seconds * Double(AnalyzerAudio.sampleRate)).rounded()) }
        try await ingest(samples, startSample: start)
    }

    /// Hands 16 kHz mono samples to the modules; a start after the audio taken so far leaves a gap, heard as
    /// silence, so that result times stay in the input's timeline.
    func ingest(_ samples: [Float], startSample: Int?) async throws {
        try checkNotFinished()
        if let startSample {
            // A converted buffer may start a sample or two off its stated time; only real overlap is an error.
            guard startSample >= consumedSamples - 2 else { throw SFSpeechError(.audioDisordered) }
            var gap = startSample - consumedSamples
            while gap > 0 {
                let piece = min(gap, AnalyzerAudio.sampleRate)
                try await append([Float](repeating: 0, count: piece))
                gap -= piece
            }
        }
        if !samples.isEmpty { try await append(samples) }
    }

    private func append(_ samples: [Float]) async throws {
        let pipeline = try await runningPipeline()
        consumedSamples += samples.count
        await pipeline.append(samples)
        if let range = volatileRange { volatileRangeHandler?(range, false, true) }
    }

    /// Makes `body` the autonomous input task, in place of the one before (cancelled): an error it throws finishes
    /// the session; once it ends, methods that wait for the end of input go on.
    func replaceInputTask(_ body: @escaping @Sendable () async throws -> Void) {
        inputTask?.cancel()
        inputGeneration += 1
        let generation = inputGeneration
        inputTask = Task(priority: options?.priority) {
            do {
                try await body()
            } catch is CancellationError {
            } catch {
                self.fail(error)
            }
            if generation == self.inputGeneration { self.inputTask = nil }
        }
    }
}
