import CoreMedia
import Foundation

extension SpeechAnalyzer {
    /// Analyses the input up to and including `through` (waiting for it to arrive), or all the input taken when
    /// nil, and makes every module's results for it final. Returns once they are published. Does nothing when
    /// nothing was taken.
    /// - Throws: the analysis' error, or `CancellationError` when the analysis finished before that time.
    public func finalize(through: CMTime?) async throws {
        try checkNotFinished()
        if let through { try await waitForInput(through: through) }
        guard let pipeline else { return }
        do {
            await (try await pipeline.value).flush()
        } catch {
            throw fail(error)
        }
        try checkNotFinished()
    }

    /// Waits for the input sequence to end, finalizes all of it, and finishes the session.
    public func finalizeAndFinishThroughEndOfInput() async throws {
        try checkNotFinished()
        await inputTask?.value
        inputTask = nil
        try await finishAnalysis()
    }

    /// `finalizeAndFinishThroughEndOfInput()`, under the name some published code calls with no argument (Apple's
    /// SDK has only `finalizeAndFinish(through:)`); accepted so that such code compiles as printed.
    public func finalizeAndFinish() async throws {
        try await finalizeAndFinishThroughEndOfInput()
    }

    /// Finalizes the input through `through` and finishes the session.
    public func finalizeAndFinish(through: CMTime) async throws {
        try checkNotFinished()
        try await waitForInput(through: through)
        inputTask?.cancel()
        inputTask = nil
        try await finishAnalysis()
    }

    /// Finishes the session once the input through `after` is analysed (it is finalized too: results are never
    /// lost).
    public func finish(after: CMTime) async throws {
        try await finalizeAndFinish(through: after)
    }

    /// Records that results before `before` are no longer wanted. The audio already taken is analysed all the same.
    public func cancelAnalysis(before: CMTime) {}

    /// Stops at once: no more input is taken, pending audio is dropped, and the modules' results end.
    public func cancelAndFinishNow() async {
        guard !isFinished else { return }
        isFinished = true
        inputTask?.cancel()
        inputTask = nil
        if let pipeline, let running = try? await pipeline.value { await running.cancel() }
        pipeline = nil
        ModuleSet.finish(modules, throwing: nil)
    }

    // MARK: - Internals

    /// The live analysis, started on first use.
    func runningPipeline() async throws -> AnalysisPipeline {
        try checkNotFinished()
        if let pipeline {
            do { return try await pipeline.value } catch { throw fail(error) }
        }
        let set: ModuleSet
        do { set = try ModuleSet(modules) } catch { throw fail(error) }
        let context = contextValue
        let retention = options?.modelRetention.modelRetention
        let task = Task(priority: options?.priority) {
            try await AnalysisPipeline.start(set, context: context, retention: retention) { [weak self] time in
                Task { await self?.noteFinalized(time) }
            }
        }
        pipeline = task
        do { return try await task.value } catch { throw fail(error) }
    }

    /// Flushes, ends the analysis and the modules' results.
    func finishAnalysis() async throws {
        guard !isFinished else { return }
        var failure: (any Error)?
        if let pipeline {
            do { try await (try await pipeline.value).finish() } catch { failure = error }
        }
        pipeline = nil
        if let failure { throw fail(failure) }
        isFinished = true
        ModuleSet.finish(modules, throwing: nil)
    }

    /// Finishes the session with `error`: the modules' results throw it; returns it for the caller to throw.
    @discardableResult
    func fail(_ error: any Error) -> any Error {
        if isFinished { return failure ?? error }
        isFinished = true
        failure = error
        inputTask?.cancel()
        inputTask = nil
        if let pipeline { Task { if let running = try? await pipeline.value { await running.cancel() } } }
        pipeline = nil
        ModuleSet.finish(modules, throwing: error)
        return error
    }

    /// Throws the error that finished the session, or `CancellationError` when it finished without one.
    func checkNotFinished() throws {
        guard isFinished else { return }
        throw failure ?? CancellationError()
    }

    /// Waits until the input through `time` was taken, or the input sequence ended.
    func waitForInput(through time: CMTime) async throws {
        while consumedTime < time, inputTask != nil {
            try checkNotFinished()
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Results became final through `time`.
    func noteFinalized(_ time: CMTime) {
        guard time > finalizedThrough, !isFinished else { return }
        finalizedThrough = time
        if let range = volatileRange { volatileRangeHandler?(range, true, false) }
    }
}
