import CCivetWeb
import Foundation

/// One HTTP request and its response, on the civetweb worker thread that handles it.
final class HTTPExchange {
    let connection: OpaquePointer
    /// `GET`, `POST`, …
    let method: String
    /// The decoded path, without the query.
    let path: String
    /// The query's decoded fields.
    let query: [String: String]
    /// The body's length from `Content-Length`, or nil when not given.
    let contentLength: Int64?
    /// The status of the response once its head is sent (0 before).
    private(set) var statusSent: Int32 = 0

    init(connection: OpaquePointer) {
        self.connection = connection
        let info = mg_get_request_info(connection)!.pointee
        method = info.request_method.map { String(cString: $0) } ?? "GET"
        path = (info.local_uri ?? info.request_uri).map { String(cString: $0) } ?? "/"
        query = Self.fields(ofQuery: info.query_string.map { String(cString: $0) } ?? "")
        contentLength = info.content_length >= 0 ? info.content_length : nil
    }

    /// A request header's value (names are case-insensitive), or nil.
    func header(_ name: String) -> String? {
        mg_get_header(connection, name).map { String(cString: $0) }
    }

    /// The body, or nil when it is longer than `limit` bytes (the rest is left unread).
    func readBody(limit: Int) -> Data? {
        if let contentLength, contentLength > Int64(limit) { return nil }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { mg_read(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return body }
            body.append(contentsOf: buffer[0..<Int(count)])
            if body.count > limit { return nil }
        }
    }

    /// Sends a whole response.
    func respond(status: Int, contentType: String, body: Data, headers: [(String, String)] = []) {
        guard startResponse(status: status, headers: [("Content-Type", contentType), ("Content-Length", String(body.count))] + headers) else {
            return
        }
        if method != "HEAD" { _ = write(body) }
    }

    /// Sends a JSON value with `status`.
    func respond<Value: Encodable>(status: Int = 200, json value: Value, headers: [(String, String)] = []) {
        respond(status: status, contentType: "application/json", body: TranscriptionResponse.encode(value), headers: headers)
    }

    /// Sends an error as OpenAI's error JSON, with `Retry-After` when it says when to come back.
    func respond(_ error: APIError) {
        var headers: [(String, String)] = []
        if let retryAfter = error.retryAfterSeconds { headers.append(("Retry-After", String(retryAfter))) }
        if error.status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
        respond(status: error.status, json: error.body, headers: headers)
    }

    /// Refuses a WebSocket upgrade with `error`'s status and JSON. civetweb's response functions do not take a
    /// connection that asked for an upgrade, so the response is written whole, with `Connection: close`.
    func refuseUpgrade(_ error: APIError) {
        let body = TranscriptionResponse.encode(error.body)
        let reason = String(cString: mg_get_response_code_text(connection, Int32(error.status)))
        var head = "HTTP/1.1 \(error.status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if error.status == 401 { head += "WWW-Authenticate: Bearer\r\n" }
        if let retryAfter = error.retryAfterSeconds { head += "Retry-After: \(retryAfter)\r\n" }
        head += "Connection: close\r\n\r\n"
        statusSent = Int32(error.status)
        _ = write(Data(head.utf8) + body)
    }

    /// Sends a response's head; the body follows with `write` (after a `Content-Length`) or `writeChunk` (after
    /// `Transfer-Encoding: chunked`). False when the head was already sent or the client has gone.
    @discardableResult
    func startResponse(status: Int, headers: [(String, String)]) -> Bool {
        guard statusSent == 0 else { return false }
        statusSent = Int32(status)
        guard mg_response_header_start(connection, Int32(status)) == 0 else { return false }
        for (name, value) in headers { mg_response_header_add(connection, name, value, -1) }
        return mg_response_header_send(connection) == 0
    }

    /// Writes part of a body; false when the client has gone.
    func write(_ data: Data) -> Bool {
        if data.isEmpty { return true }
        return data.withUnsafeBytes { mg_write(connection, $0.baseAddress, $0.count) } == data.count
    }

    /// Writes one chunk of a chunked body (an empty one ends it); false when the client has gone.
    func writeChunk(_ data: Data) -> Bool {
        var data = data
        data.append(0)  // so that even an empty chunk has an address
        return data.withUnsafeBytes { bytes in
            mg_send_chunk(connection, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(bytes.count - 1))
        } >= 0
    }

    /// `a=1&b=two%20words` as a dictionary (the last value of a repeated name wins).
    static func fields(ofQuery query: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }
}
