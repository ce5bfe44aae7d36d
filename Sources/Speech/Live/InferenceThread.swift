import AuralWhisper
import Foundation

/// Runs a `StreamingTranscription` on a thread of its own, so decodes never block Swift's cooperative pool or the
/// main actor. Audio is appended from any thread; an update starts whenever a cadence of new audio waits, and takes
/// all the audio that arrived during the previous one (no queue builds up behind a slow decode). The cadence
/// lengthens while updates take long (`AdaptiveCadence`, `LiveLoad`).
final class InferenceThread: @unchecked Sendable {
    /// The live transcription, or nil for voice activity detection alone.
    private let transcription: StreamingTranscription?
    /// Read and written by the inference thread only.
    private var cadence: AdaptiveCadence
    /// The load this thread counts in, left when the thread ends; nil when not counted (voice detection alone).
    private let load: LiveLoad?
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
    /// Writers waiting for `incoming` to drain below their bound (`appendWaiting`).
    private var roomWaiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var failure: (any Error)?

    /// - Parameters:
    ///   - cadence: seconds of new audio that start an update on an unloaded machine.
    ///   - load: the load the caller admitted this transcription to (`LiveLoad.admit()`); the thread leaves it when
    ///     it ends, and marks it full when its updates need more than `LiveLoad.maximumCadence`.
    ///   - deliver: called on the inference thread with each update, in order.
    ///   - gate: voice activation, or nil to decode all audio.
    ///   - reportSpans: called on the inference thread with the spans the gate settled as speech or silence.
    init(
        transcription: StreamingTranscription?, cadence: Double, load: LiveLoad? = nil, gate: VoiceActivityGate? = nil,
        reportSpans: @escaping @Sendable ([VoiceActivityGate.Span]) -> Void = { _ in },
        deliver: @escaping @Sendable (StreamingTranscription.Update) -> Void
    ) {
        self.transcription = transcription
        self.cadence = AdaptiveCadence(base: cadence)
        self.load = load
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

    /// Adds 16 kHz mono samples, then waits while more than `maximumPendingSeconds` of audio wait for a decode, so
    /// that input faster than real time (a file read into buffers) is taken at the pace of the analysis.
    func appendWaiting(_ samples: [Float], maximumPendingSeconds: Double) async {
        append(samples)
        let limit = Int(maximumPendingSeconds * Double(WhisperTime.sampleRate))
        await withCheckedContinuation { continuation in
            let roomNow = condition.withLock { () -> Bool in
                if finished || cancelled || incoming.count <= limit { return true }
                roomWaiters.append((limit, continuation))
                return false
            }
            if roomNow { continuation.resume() }
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
                && Double(incoming.count) / Double(WhisperTime.sampleRate) + (transcription?.undecodedSeconds ?? 0) < cadence.seconds
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
            let writers = roomWaiters.map(\.continuation)
            roomWaiters = []
            condition.unlock()
            for writer in writers { writer.resume() }
            if stop { break }

            do {
                let started = DispatchTime.now().uptimeNanoseconds
                try analyse(samples, final: final)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                if transcription != nil, cadence.noteUpdate(seconds: seconds) { load?.noteFull() }
            } catch {
                condition.withLock { failure = error }
                break
            }
            for waiter in waiters { waiter.resume() }
            if ending { break }
        }
        load?.leave()
        condition.lock()
        finished = true
        let waiters = flushWaiters + finishWaiters
        let writers = roomWaiters.map(\.continuation)
        flushWaiters = []
        finishWaiters = []
        roomWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
        for writer in writers { writer.resume() }
    }

    /// One step of the loop: the transcription's updates, or with no transcription the detector's spans alone.
    private func analyse(_ samples: [Float], final: Bool) throws {
        if let transcription {
            for update in try transcription.advance(with: samples, gate: gate, final: final, spans: reportSpans) {
                deliver(update)
            }
        } else if let gate {
            let spans = gate.process(samples).spans + (final ? gate.drainSpans() : [])
            if !spans.isEmpty { reportSpans(spans) }
        }
    }
}
