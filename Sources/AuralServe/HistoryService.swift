import AuralHistory
import Foundation

/// The server's transcript history: the `TranscriptStore` at `SpeechServer.Configuration.history`, opened when the
/// server starts, or none. Only what a client opts into (`history=true`, `ClientOptIns`) is recorded; the history
/// is this process's (replicas each keep their own, or none).
final class ServerHistory: @unchecked Sendable {  // `opened` is set once in open(), guarded by `lock`
    /// The database, or nil for no history.
    let url: URL?
    private let lock = NSLock()
    private var opened: TranscriptStore?

    init(url: URL?) {
        self.url = url
    }

    /// Opens (or creates) the database; nothing happens without a `url`.
    /// - Throws: `ServerError.invalidOption(name: "history", …)` with the store's reason and remedy.
    func open() throws {
        guard let url else { return }
        do {
            let store = try TranscriptStore(url: url)
            lock.withLock { opened = store }
        } catch {
            let reason = [error.errorDescription, error.recoverySuggestion].compactMap { $0 }.joined(separator: " ")
            throw ServerError.invalidOption(name: "history", reason: "\(reason) (or start with --no-history)")
        }
    }

    /// The open store, or nil when the server keeps no history.
    var store: TranscriptStore? { lock.withLock { opened } }

    /// The store, for the history routes.
    /// - Throws: `APIError` 404 `history_disabled` when the server keeps no history.
    func requireStore() throws(APIError) -> TranscriptStore {
        guard let store else {
            throw APIError(
                status: 404,
                message: "This server keeps no history (it was started with --no-history, or embedded without one). Start 'aural serve' without --no-history to keep the transcriptions that ask for it (history=true).",
                type: "invalid_request_error", code: "history_disabled")
        }
        return store
    }

    /// The store for a request that opted in, or nil when it did not or there is no history.
    func store(for optIns: ClientOptIns) -> TranscriptStore? {
        optIns.history ? store : nil
    }
}

extension APIError {
    /// A history store's error as the client sees it: an unknown session is 404, anything else is the server's.
    static func history(_ error: TranscriptStoreError) -> APIError {
        if case .sessionNotFound(let id) = error {
            return APIError(
                status: 404, message: "There is no history session \(id). List them with GET /v1/history.",
                type: "invalid_request_error", param: "id", code: "session_not_found")
        }
        let text = [error.errorDescription, error.failureReason, error.recoverySuggestion].compactMap { $0 }
        return .internalError("The history could not be read: " + text.joined(separator: " "))
    }
}
