import AuralHistory
import AuralKit
import Foundation

/// The history routes, behind the API key like the others; each answers 404 `history_disabled` when the server
/// keeps no history:
/// - `GET /v1/history?query=&limit=`: the sessions, newest first; with `query`, the sessions whose results hold
///   every word of it (stems match, `word*` is a prefix), best first, each with its `matches`;
/// - `GET /v1/history/{id}`: one session with its text and segments;
/// - `GET /v1/history/{id}/export?format=txt|srt|vtt|json`: the session as `aural history export` writes it.
extension SpeechServer {
    /// The route names the metrics count the history's requests under.
    static let historyRoutes = ["/v1/history", "/v1/history/{id}", "/v1/history/{id}/export"]

    /// The history route `path` is, with the session number it names; nil when it is not one.
    static func historyRoute(_ path: String) -> (route: String, id: String?)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2, parts[0] == "v1", parts[1] == "history" else { return nil }
        switch parts.count {
        case 2: return ("/v1/history", nil)
        case 3: return ("/v1/history/{id}", parts[2])
        case 4 where parts[3] == "export": return ("/v1/history/{id}/export", parts[2])
        default: return nil
        }
    }

    /// Answers a request to a history route (`route` as `historyRoute(_:)` names it).
    func answerHistory(_ exchange: HTTPExchange, route: String) {
        guard exchange.method == "GET" || exchange.method == "HEAD" else {
            return exchange.respond(APIError.methodNotAllowed(method: exchange.method, path: exchange.path, allowed: "GET"))
        }
        do {
            let store = try history.requireStore()
            let id = Self.historyRoute(exchange.path)?.id
            switch route {
            case "/v1/history/{id}": try showHistory(exchange, store: store, id: try Self.sessionID(id))
            case "/v1/history/{id}/export": try exportHistory(exchange, store: store, id: try Self.sessionID(id))
            default: try listHistory(exchange, store: store)
            }
        } catch let error as APIError {
            exchange.respond(error)
        } catch {
            exchange.respond(APIError.internalError("The history could not be read: \(error.localizedDescription)"))
        }
    }

    private func listHistory(_ exchange: HTTPExchange, store: TranscriptStore) throws {
        let limitText = exchange.query["limit"] ?? "50"
        guard let limit = Int(limitText), (1...1000).contains(limit) else {
            throw APIError.invalidRequest("limit must be a whole number from 1 to 1000, got '\(limitText)'.", param: "limit")
        }
        let query = (exchange.query["query"] ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let sessions = query.isEmpty
                ? try store.sessions(limit: limit).map { HistorySessionBody($0) }
                : HistorySessionBody.grouping(try store.search(query, limit: limit))
            exchange.respond(json: HistoryListBody(data: sessions))
        } catch {
            throw APIError.history(error)
        }
    }

    private func showHistory(_ exchange: HTTPExchange, store: TranscriptStore, id: TranscriptStore.SessionID) throws {
        do {
            exchange.respond(json: HistoryTranscriptBody(try store.transcript(id)))
        } catch {
            throw APIError.history(error)
        }
    }

    /// The session through the same writer `aural history export` uses, as a download named `aural-ID.FORMAT`.
    private func exportHistory(_ exchange: HTTPExchange, store: TranscriptStore, id: TranscriptStore.SessionID) throws {
        let name = exchange.query["format"] ?? "txt"
        guard let format = TranscriptFormat(rawValue: name) else {
            throw APIError.invalidRequest(
                "format '\(name)' is not one of \(TranscriptFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
                param: "format")
        }
        let transcript: TranscriptStore.Transcript
        do {
            transcript = try store.transcript(id)
        } catch {
            throw APIError.history(error)
        }
        let rendered = format.writer.render(segments: transcript.segments, info: transcript.info)
        exchange.respond(
            status: 200, contentType: Self.contentType(of: format), body: Data(rendered.utf8),
            headers: [("Content-Disposition", "attachment; filename=\"aural-\(id).\(format.fileExtension)\"")])
    }

    private static func contentType(of format: TranscriptFormat) -> String {
        switch format {
        case .txt: return "text/plain; charset=utf-8"
        case .srt: return "application/x-subrip; charset=utf-8"
        case .vtt: return "text/vtt; charset=utf-8"
        case .json: return "application/json"
        }
    }

    private static func sessionID(_ text: String?) throws -> TranscriptStore.SessionID {
        guard let text, let id = TranscriptStore.SessionID(text), id.rawValue > 0 else {
            throw APIError.invalidRequest(
                "'\(text ?? "")' is not a history session number; take one from GET /v1/history.", param: "id")
        }
        return id
    }
}
