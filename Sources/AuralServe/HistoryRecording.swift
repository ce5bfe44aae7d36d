import AuralHistory
import AuralWhisper
import Foundation
import Speech

/// A live session's transcript going into the history: begun when its audio starts, each non-empty final result
/// appended (committed at once, so a server that is killed keeps what was final), ended when the socket closes.
/// The first write that fails stops the recording and is returned, for the session to tell its client; the
/// transcription goes on.
final class HistoryRecording: @unchecked Sendable {  // `isRecording` is guarded by `lock`
    /// The stored session's number.
    let id: TranscriptStore.SessionID
    private let store: TranscriptStore
    private let lock = NSLock()
    private var isRecording = true

    /// Begins a session in `store`.
    /// - Throws: `TranscriptStoreError` when it cannot be written.
    init(store: TranscriptStore, info: TranscriptStore.SessionInfo) throws(TranscriptStoreError) {
        self.store = store
        id = try store.beginSession(info)
    }

    /// Stores a final result; volatile and empty ones are skipped. Returns the error that stopped the recording.
    func append(_ result: SpeechTranscriber.Result) -> TranscriptStoreError? {
        guard result.isFinal, !String(result.text.characters).allSatisfy(\.isWhitespace) else { return nil }
        return perform { (store) throws(TranscriptStoreError) in try store.append(result, to: id) }
    }

    /// Records the end, with the seconds of audio the client sent.
    func end(audioDuration: Double) {
        _ = perform { (store) throws(TranscriptStoreError) in try store.endSession(id, audioDuration: audioDuration) }
        lock.withLock { isRecording = false }
    }

    private func perform(_ write: (TranscriptStore) throws(TranscriptStoreError) -> Void) -> TranscriptStoreError? {
        lock.lock()
        defer { lock.unlock() }
        guard isRecording else { return nil }
        do {
            try write(store)
            return nil
        } catch {
            isRecording = false
            return error
        }
    }
}

extension SpeechServer {
    /// Stores a finished upload's transcription as a history session (one result per segment, with its words and the
    /// engine's details), when the request asked for it (`history=true`) and the server keeps a history.
    /// - Returns: The headers that tell the client: `Aural-History-Session: ID`, or `Aural-History-Error: why` when
    ///   it could not be stored or the server keeps no history (the transcription is answered all the same); none
    ///   when not asked for.
    func recordInHistory(_ exchange: HTTPExchange, job: Job, response: TranscriptionResponse) -> [(String, String)] {
        guard let optIns = try? ClientOptIns(query: exchange.query), optIns.history else { return [] }
        guard let store = history.store(for: optIns) else {
            return [("Aural-History-Error", "This server keeps no history (it was started with --no-history).")]
        }
        let info = TranscriptStore.SessionInfo(
            source: "\(job.filename) (upload)", locale: Locale(identifier: response.info.language),
            model: models.resolve(job.request.model),
            languageProbability: job.request.language == nil ? response.info.languageProbability : nil)
        do {
            let id = try store.beginSession(info)
            for segment in response.segments { try store.append(segment, to: id) }
            try store.endSession(id, audioDuration: response.info.duration)
            return [("Aural-History-Session", id.description)]
        } catch {
            let reason = [error.errorDescription, error.failureReason].compactMap { $0 }.joined(separator: " ")
            return [("Aural-History-Error", reason.replacingOccurrences(of: "\n", with: " "))]
        }
    }
}
