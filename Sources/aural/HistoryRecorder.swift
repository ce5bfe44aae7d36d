import AuralHistory
import AuralKit
import AuralWhisper
import Foundation

/// Writes a command's transcripts into the history as they arrive, and never stops the command: when the database
/// cannot be opened or written (damaged, locked, disk full), it warns once on standard error and records nothing
/// more, while transcription goes on.
///
/// ```swift
/// let recorder = HistoryRecorder(url: HistoryCommand.url(parsed))
/// recorder.begin(TranscriptStore.SessionInfo(source: "Built-in microphone", model: "base"))
/// for try await result in stream { recorder.record(result) }
/// recorder.end()
/// ```
final class HistoryRecorder {
    private var store: TranscriptStore?
    private var session: TranscriptStore.SessionID?

    /// Opens the history at `url`; on failure, warns and records nothing.
    init(url: URL) {
        do {
            store = try TranscriptStore(url: url)
        } catch {
            disable(error)
        }
    }

    /// Starts a new session; the results recorded next belong to it.
    func begin(_ info: TranscriptStore.SessionInfo) {
        guard let store else { return }
        do {
            session = try store.beginSession(info)
        } catch {
            disable(error)
        }
    }

    /// Stores a segment of the current session (committed at once).
    func record(_ segment: Segment) {
        perform { store, session in try store.append(segment, to: session) }
    }

    /// Stores a final result of the current session (committed at once); volatile results are skipped.
    func record(_ result: SpeechTranscriber.Result) {
        perform { store, session in try store.append(result, to: session) }
    }

    /// Ends the current session, with the audio's duration in seconds when known.
    func end(audioDuration: Double? = nil) {
        perform { store, session in try store.endSession(session, audioDuration: audioDuration) }
        session = nil
    }

    private func perform(_ body: (TranscriptStore, TranscriptStore.SessionID) throws -> Void) {
        guard let store, let session else { return }
        do {
            try body(store, session)
        } catch {
            disable(error)
        }
    }

    private func disable(_ error: Error) {
        store = nil
        session = nil
        report(error, severity: "warning", note: "History is off for the rest of this run; transcription goes on.")
    }
}
