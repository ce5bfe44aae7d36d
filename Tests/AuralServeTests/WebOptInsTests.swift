import Foundation
import Testing

@testable import AuralServe

/// What a client asks for beyond OpenAI's API (`history=true`, `volatile=true`) and a browser's key on a WebSocket.
@Suite("Opt-ins in the query, and the browser's API key")
struct WebOptInsTests {
    @Test("nothing asked is OpenAI's behaviour")
    func nothingAsked() throws {
        #expect(try ClientOptIns(query: [:]) == ClientOptIns())
        #expect(try ClientOptIns(query: ["intent": "transcription"]) == ClientOptIns())
    }

    @Test("true and 1 opt in; false, 0 and empty do not", arguments: [
        ("true", true), ("1", true), ("TRUE", true), ("false", false), ("0", false), ("", false),
    ])
    func values(value: String, expected: Bool) throws {
        let optIns = try ClientOptIns(query: ["history": value, "volatile": value])
        #expect(optIns.history == expected && optIns.volatileText == expected)
    }

    @Test("any other value is a 400 that names the field", arguments: ["history", "volatile"])
    func badValue(name: String) {
        #expect {
            _ = try ClientOptIns(query: [name: "maybe"])
        } throws: { error in
            let error = error as? APIError
            return error?.status == 400 && error?.param == name && error?.message.contains("maybe") == true
        }
    }

    @Test("the key comes from OpenAI's browser subprotocol, alone or in a list")
    func subprotocolKey() {
        #expect(BrowserAPIKey.fromSubprotocols("openai-insecure-api-key.sesame") == "sesame")
        #expect(BrowserAPIKey.fromSubprotocols("realtime, openai-insecure-api-key.sesame") == "sesame")
        #expect(BrowserAPIKey.fromSubprotocols("realtime") == nil)
        #expect(BrowserAPIKey.fromSubprotocols("openai-insecure-api-key.") == nil)
        #expect(BrowserAPIKey.fromSubprotocols(nil) == nil)
    }
}
