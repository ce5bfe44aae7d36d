import Foundation
import Testing

@testable import AuralServe

/// The web page's files as the server holds them (the page itself runs in Chromium in scripts/web-check).
@Suite("The web page's files")
struct WebPageTests {
    @Test("every file the page loads is served, with its type")
    func referencedFilesAreServed() throws {
        let index = String(decoding: try #require(WebAsset.all["/"]).body, as: UTF8.self)
        let app = String(decoding: try #require(WebAsset.all["/web/app.js"]).body, as: UTF8.self)
        let referenced = (index + app).matches(of: /"(\/web\/[a-z0-9.-]+)"/).map { String($0.1) }
        #expect(Set(referenced) == ["/web/style.css", "/web/app.js", "/web/pcm-worklet.js"])
        for path in referenced { #expect(WebAsset.all[path] != nil, "\(path)") }
        #expect(WebAsset.all["/web/app.js"]?.contentType.hasPrefix("text/javascript") == true)
        #expect(WebAsset.all["/web/style.css"]?.contentType.hasPrefix("text/css") == true)
        #expect(WebAsset.all["/"]?.contentType.hasPrefix("text/html") == true)
    }

    @Test("the page's paths are routes of their own for the metrics")
    func routes() {
        #expect(SpeechServer.route("/") == "/")
        #expect(SpeechServer.route("/web/app.js") == "/web/app.js")
        #expect(SpeechServer.route("/web/other.js") == "other")
    }

    @Test("the page loads nothing from another server and runs no inline script")
    func selfContained() throws {
        let index = String(decoding: try #require(WebAsset.all["/"]).body, as: UTF8.self)
        #expect(!index.contains("http://") && !index.contains("https://"))
        #expect(index.matches(of: /<script[^>]*>/).allSatisfy { $0.0.contains("src=") })
        #expect(WebAsset.securityHeaders.contains { $0.0 == "Content-Security-Policy" && $0.1.contains("default-src 'self'") })
    }
}
