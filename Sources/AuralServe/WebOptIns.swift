import Foundation

/// What a client asks for beyond OpenAI's API, in its URL's query, so that OpenAI's own clients, which never send
/// these, get exactly OpenAI's behaviour:
/// - `history=true` (REST and WebSocket): record this transcription or live session in the server's history;
/// - `volatile=true` (WebSocket): also send the phrase's volatile text as `aural.transcription.volatile` events.
///
/// Each takes `true`/`1` or `false`/`0` (empty is false); anything else is a 400 naming the field.
struct ClientOptIns: Equatable, Sendable {
    /// Whether the transcription is recorded in the history (when the server keeps one).
    var history = false
    /// Whether a live session sends its volatile text.
    var volatileText = false

    /// Nothing asked for: OpenAI's behaviour.
    init() {}

    /// Reads the query's `history` and `volatile` fields.
    /// - Throws: `APIError` 400 for a value that is not a boolean.
    init(query: [String: String]) throws(APIError) {
        history = try Self.flag("history", in: query)
        volatileText = try Self.flag("volatile", in: query)
    }

    private static func flag(_ name: String, in query: [String: String]) throws(APIError) -> Bool {
        guard let value = query[name] else { return false }
        switch value.lowercased() {
        case "true", "1": return true
        case "false", "0", "": return false
        default: throw APIError.invalidRequest("The query field '\(name)' takes true or false, not '\(value)'.", param: name)
        }
    }
}

/// The API key a browser sends on a WebSocket, which cannot carry `Authorization`: OpenAI's subprotocol
/// `openai-insecure-api-key.KEY` in `Sec-WebSocket-Protocol` (a comma-separated list).
enum BrowserAPIKey {
    static let prefix = "openai-insecure-api-key."

    /// The key in the header's subprotocols, or nil when none carries one.
    static func fromSubprotocols(_ header: String?) -> String? {
        guard let header else { return nil }
        for item in header.split(separator: ",") {
            let name = item.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix(prefix), name.count > prefix.count { return String(name.dropFirst(prefix.count)) }
        }
        return nil
    }
}
