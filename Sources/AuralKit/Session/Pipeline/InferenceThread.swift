import AuralWhisper
import Foundation

/// Runs a `StreamingTranscription` on a thread of its own, so decodes never block Swift's cooperative pool or the
/// main actor. Audio is appended from any thread; an update starts whenever `cadence` seconds of new audio wait, and
/// takes all the audio that arrived during the previous one (no queue builds up behind a slow decode).
final class InferenceThread: @unchecked Sendable {
    private let transcription: StreamingTranscription
    private let cadence: Double
    private let deliver: @Sendable (StreamingTranscription.Update) -> Void
    /// Voice activation: only the speech it lets through is decoded.
    private let gate: VoiceActivityGate?
    private let reportSpans: @Sendable ([VoiceActivityGate.Span]) -> Void
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var incoming: [Float] = []
    private var flushWaiters: [CheckedContinuation<Void, Never>] = []
    private var flushRequested = false
    private var finishing = false
    private var cancelled = false
    private var finished = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    private var failure: (any Error)?

    /// - Parameters:
    ///   - cadence: seconds of new audio that start an update.
    ///   - deliver: called on the inference thread with each update, in order.
    ///   - gate: voice activation, or nil to decode all audio.
    ///   - reportSpans: called on the inference thread with the spans the gate settled as speech or silence.
    init(
        transcription: StreamingTranscription, cadence: Double, gate: VoiceActivityGate? = nil,
        reportSpans: @escaping @Sendable ([VoiceActivityGate.Span]) -> Void = { _ in },
        deliver: @escaping @Sendable (StreamingTranscription.Update) -> Void
    ) {
        self.transcription = transcription
        self.cadence = cadence
        self.gate = gate
        self.reportSpans = reportSpans
        self.deliver = deliver
        let thread = Thread { [self] in loop() }
        thread.name = "AuralKit inference"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Adds 16 kHz mono samples.
    func append(_ samples: [Float]) {
        guard !samples.isEmpty else { return }
        condition.withLock {
            incoming += samples
            condition.signal()
        }
    }

    /// Decodes everything received and commits it; returns once those results are delivered.
    func flush() async {
        await withCheckedContinuation { continuation in
            condition.withLock {
                if finished {
                    continuation.resume()
                    return
                }
                flushWaiters.append(continuation)
                flushRequested = true
                condition.signal()
            }
        }
    }

    /// Flushes, then ends the thread; returns once the last results are delivered. Throws the error a decode hit.
    func finish() async throws {
        await withCheckedContinuation { continuation in
            condition.withLock {
                if finished {
                    continuation.resume()
                    return
                }
                finishWaiters.append(continuation)
                finishing = true
                condition.signal()
            }
        }
        if let failure = condition.withLock({ failure }) { throw failure }
    }

    /// Ends the thread after the current decode, delivering nothing more.
    func cancel() {
        condition.withLock {
            cancelled = true
            condition.signal()
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while !cancelled && !finishing && !flushRequested
                && Double(incoming.count) / Double(WhisperTime.sampleRate) + transcription.undecodedSeconds < cadence
            {
                condition.wait()
            }
            let samples = incoming
            incoming.removeAll(keepingCapacity: true)
            let stop = cancelled
            let final = finishing || flushRequested
            let ending = finishing
            let waiters = flushWaiters
            flushWaiters = []
            flushRequested = false
            condition.unlock()
            if stop { break }

            do {
                for update in try transcription.advance(with: samples, gate: gate, final: final, spans: reportSpans) {
                    deliver(update)
                }
            } catch {
                condition.withLock { failure = error }
                break
            }
            for waiter in waiters { waiter.resume() }
            if ending { break }
        }
        condition.lock()
        finished = true
        let waiters = flushWaiters + finishWaiters
        flushWaiters = []
        finishWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }
}
