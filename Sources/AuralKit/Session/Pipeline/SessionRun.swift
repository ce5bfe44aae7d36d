import AVFoundation
import AuralAudio
import Foundation
import Speech
import Synchronization

/// One `startTranscribing` call: its stream's continuation, the audio source and the capture loop that feeds the
/// session's `SpeechAnalyzer`, with stop, pause, resume and cancel. Each stretch of capture (from a start or a resume
/// to a pause or the stop) is one input sequence of the analyzer. Lives until the stream ends.
final class SessionRun: Sendable {
    let continuation: AsyncThrowingStream<SpeechTranscriber.Result, Error>.Continuation
    private let makeSource: @Sendable () -> any AudioSource
    /// Whether the run transcribes a file (no capture: a pause does nothing, a stop cancels the transcription).
    let isFile: Bool
    /// The task that drives the run (prepare, capture, flush); set once by the session.
    nonisolated(unsafe) var task: Task<Void, Never>?

    private struct State {
        var source: (any AudioSource)?
        var stopRequested = false
        var pauseRequested = false
        var cancelled = false
        /// The capture loop waits here while paused.
        var resumeWaiter: CheckedContinuation<Bool, Never>?
        /// `pause()` waits here until the flush of the paused audio is delivered.
        var pauseWaiters: [CheckedContinuation<Void, Never>] = []
        /// `resume()` waits here until capture restarted (or failed).
        var resumeResult: CheckedContinuation<Void, Error>?
        var analyzer: SpeechAnalyzer?
    }

    private let state = Mutex(State())

    init(
        continuation: AsyncThrowingStream<SpeechTranscriber.Result, Error>.Continuation, isFile: Bool = false,
        makeSource: @escaping @Sendable () -> any AudioSource
    ) {
        self.continuation = continuation
        self.isFile = isFile
        self.makeSource = makeSource
    }

    /// Captures until stopped or cancelled, feeding `analyzer`; a pause finalizes what was captured and waits for
    /// `resume()`. Returns when capture has ended for good (its last input sequence consumed, not yet finalized);
    /// throws the source's error (after finalizing what was captured).
    func capture(into analyzer: SpeechAnalyzer, onStarted: @escaping @MainActor () -> Void) async throws {
        state.withLock { $0.analyzer = analyzer }
        while true {
            if state.withLock({ $0.stopRequested || $0.cancelled }) { return }
            let source = makeSource()
            let buffers: AsyncThrowingStream<AudioBuffer, Error>
            do {
                // Connecting to the sound server happens on a thread of its own, never on the cooperative pool.
                buffers = try await source.startCapture()
            } catch {
                failResume(error)
                throw error
            }
            let stopNow = state.withLock { state -> Bool in
                state.source = source
                return state.stopRequested || state.cancelled || state.pauseRequested
            }
            if stopNow { source.stop() }
            await onStarted()
            succeedResume()
            var failure: (any Error)?
            do {
                try await Self.feed(buffers, to: analyzer)
            } catch {
                failure = error
            }
            source.stop()
            state.withLock { $0.source = nil }
            if let failure {
                try? await analyzer.finalize(through: nil)
                throw failure
            }
            // The source ended: a stop, a pause, a cancel, or the end of a finite source.
            let paused = state.withLock { $0.pauseRequested && !$0.stopRequested && !$0.cancelled }
            guard paused else { return }
            try await analyzer.finalize(through: nil)
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state.pauseWaiters = [] }
                return state.pauseWaiters
            }
            for waiter in waiters { waiter.resume() }
            let resumed = await withCheckedContinuation { continuation in
                let immediate = state.withLock { state -> Bool? in
                    if state.stopRequested || state.cancelled { return false }
                    if !state.pauseRequested { return true }
                    state.resumeWaiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
            if !resumed { return }
        }
    }

    /// Hands each buffer to the analyzer as one input sequence, off the main actor; returns once the analyzer has
    /// taken all of it (the analyzer converts the source's format).
    private static func feed(_ buffers: AsyncThrowingStream<AudioBuffer, Error>, to analyzer: SpeechAnalyzer) async throws {
        let (inputs, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        let analysis = Task { try await analyzer.analyzeSequence(inputs) }
        do {
            for try await buffer in buffers {
                guard let pcm = AVAudioPCMBuffer(buffer) else { continue }
                // A terminated input means the analysis failed: its error is thrown below.
                if case .terminated = builder.yield(AnalyzerInput(buffer: pcm)) { break }
            }
        } catch {
            builder.finish()
            _ = try? await analysis.value
            throw error
        }
        builder.finish()
        _ = try await analysis.value
    }

    /// Ends capture; the session then flushes and finishes the stream. A file run stops transcribing at once.
    func requestStop() {
        if isFile { task?.cancel() }
        let (source, waiter) = state.withLock { state in
            state.stopRequested = true
            defer { state.resumeWaiter = nil }
            return (state.source, state.resumeWaiter)
        }
        source?.stop()
        waiter?.resume(returning: false)
    }

    /// Stops capture and returns once what was captured is delivered as final.
    func pause() async {
        await withCheckedContinuation { continuation in
            let source = state.withLock { state -> (any AudioSource)? in
                state.pauseRequested = true
                state.pauseWaiters.append(continuation)
                return state.source
            }
            source?.stop()
        }
    }

    /// Restarts capture; throws when the source cannot start again.
    func resume() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let waiter = state.withLock { state in
                state.pauseRequested = false
                state.resumeResult = continuation
                defer { state.resumeWaiter = nil }
                return state.resumeWaiter
            }
            waiter?.resume(returning: true)
        }
    }

    /// The consumer went away: stop capture and decoding without delivering more.
    func cancel() {
        let (source, waiter, analyzer, pauseWaiters) = state.withLock { state in
            state.cancelled = true
            defer {
                state.resumeWaiter = nil
                state.pauseWaiters = []
            }
            return (state.source, state.resumeWaiter, state.analyzer, state.pauseWaiters)
        }
        source?.stop()
        if let analyzer { Task { await analyzer.cancelAndFinishNow() } }
        waiter?.resume(returning: false)
        for waiter in pauseWaiters { waiter.resume() }
        task?.cancel()
    }

    private func succeedResume() {
        let waiter = state.withLock { state in
            defer { state.resumeResult = nil }
            return state.resumeResult
        }
        waiter?.resume()
    }

    private func failResume(_ error: any Error) {
        let waiter = state.withLock { state in
            defer { state.resumeResult = nil }
            return state.resumeResult
        }
        waiter?.resume(throwing: SpeechSessionError.from(error))
    }
}
