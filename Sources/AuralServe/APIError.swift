import Foundation

/// An error answered as OpenAI answers it: an HTTP status and
/// `{"error": {"message", "type", "param", "code"}}`, the message saying what to do about it.
struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    var status: Int
    /// What went wrong and what to do, for a person.
    var message: String
    /// OpenAI's category: `invalid_request_error`, `authentication_error`, `server_error`, …
    var type: String
    /// The request field at fault, if one is.
    var param: String?
    /// A machine-readable reason, if there is one (`model_not_found`, `invalid_api_key`, …).
    var code: String?
    /// Seconds after which the request may succeed, sent as `Retry-After`.
    var retryAfterSeconds: Int?

    /// The JSON body.
    var body: Body { Body(error: .init(message: message, type: type, param: param, code: code)) }

    struct Body: Codable, Equatable {
        struct Detail: Codable, Equatable {
            var message: String
            var type: String
            var param: String?
            var code: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(message, forKey: .message)
                try container.encode(type, forKey: .type)
                try container.encode(param, forKey: .param)  // null, as OpenAI sends it, rather than left out
                try container.encode(code, forKey: .code)
            }
        }
        var error: Detail
    }

    /// A request that cannot be served as sent (400).
    static func invalidRequest(_ message: String, param: String? = nil, code: String? = nil) -> APIError {
        APIError(status: 400, message: message, type: "invalid_request_error", param: param, code: code)
    }

    /// A missing or wrong API key (401).
    static let unauthorized = APIError(
        status: 401,
        message: "Incorrect or missing API key. Send it as 'Authorization: Bearer KEY', with a key given to 'aural serve --api-key'.",
        type: "invalid_request_error", code: "invalid_api_key")

    /// No such route (404).
    static func notFound(method: String, path: String) -> APIError {
        APIError(
            status: 404,
            message: "No route for \(method) \(path). The routes: POST /v1/audio/transcriptions, POST /v1/audio/translations, GET /v1/realtime (WebSocket), GET /v1/models, GET /v1/history (and /v1/history/ID, /v1/history/ID/export), GET /health, GET /metrics, and the web page at GET /.",
            type: "invalid_request_error")
    }

    /// A route that exists with another method (405).
    static func methodNotAllowed(method: String, path: String, allowed: String) -> APIError {
        APIError(status: 405, message: "\(path) takes \(allowed), not \(method).", type: "invalid_request_error")
    }

    /// A body over the upload limit (413).
    static func tooLarge(limitBytes: Int) -> APIError {
        APIError(
            status: 413,
            message: "The upload is larger than this server's limit of \(limitBytes / 1_000_000) MB. Send a shorter or more compressed file, or start the server with a higher --max-upload-mb.",
            type: "invalid_request_error", code: "request_too_large")
    }

    /// Every worker busy and the queue full (429).
    static func busy(retryAfterSeconds: Int) -> APIError {
        APIError(
            status: 429,
            message: "The server is busy: every transcription slot is taken and the queue is full. Retry after \(retryAfterSeconds) s, or run more replicas.",
            type: "server_busy", code: "rate_limit_exceeded", retryAfterSeconds: retryAfterSeconds)
    }

    /// The server is stopping (503).
    static let shuttingDown = APIError(
        status: 503, message: "The server is shutting down. Retry on another replica, or once it is back.",
        type: "server_error", code: "server_shutting_down", retryAfterSeconds: 5)

    /// A failure of ours (500).
    static func internalError(_ message: String) -> APIError {
        APIError(status: 500, message: message, type: "server_error")
    }
}
