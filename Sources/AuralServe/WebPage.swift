import Foundation

/// One file of the web page at `/` (AuralKit's demo app in a browser: the microphone live, a file upload, the
/// history), compiled into the binary so that the server needs no files beside it, no build step and no CDN.
/// The files are plain HTML, CSS and JavaScript, one Swift file each (`WebIndexHTML.swift`, …).
///
/// They are served without an API key, as they hold no secret: the page asks for the key when the server wants one
/// and sends it with its own requests (`Authorization`, or OpenAI's browser subprotocol on the WebSocket).
struct WebAsset: Sendable {
    /// `text/html; charset=utf-8`, …
    var contentType: String
    var body: Data

    /// The page's files by path.
    static let all: [String: WebAsset] = [
        "/": WebAsset(contentType: "text/html; charset=utf-8", body: Data(webIndexHTML.utf8)),
        "/web/app.js": WebAsset(contentType: "text/javascript; charset=utf-8", body: Data(webAppJS.utf8)),
        "/web/pcm-worklet.js": WebAsset(contentType: "text/javascript; charset=utf-8", body: Data(webPCMWorkletJS.utf8)),
        "/web/style.css": WebAsset(contentType: "text/css; charset=utf-8", body: Data(webStyleCSS.utf8)),
    ]

    /// Headers that keep the page to its own files and this server (no inline script, no other origin).
    static let securityHeaders = [
        ("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-cache"),
    ]

    /// Answers `GET` or `HEAD` with the file; other methods get 405.
    func serve(to exchange: HTTPExchange) {
        guard exchange.method == "GET" || exchange.method == "HEAD" else {
            return exchange.respond(APIError.methodNotAllowed(method: exchange.method, path: exchange.path, allowed: "GET"))
        }
        exchange.respond(status: 200, contentType: contentType, body: body, headers: Self.securityHeaders)
    }
}
