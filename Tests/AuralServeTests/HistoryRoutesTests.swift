import AuralHistory
import AuralKit
import AuralWhisper
import Foundation
import Testing

@testable import AuralServe

/// The history routes' paths and bodies, on a real `TranscriptStore` in a temporary folder (the routes themselves
/// are driven through the web page by scripts/web-check).
@Suite("The history routes")
struct HistoryRoutesTests {
    @Test("paths name the route and the session", arguments: [
        ("/v1/history", "/v1/history", nil), ("/v1/history/", "/v1/history", nil), ("/v1/history/12", "/v1/history/{id}", "12"),
        ("/v1/history/12/export", "/v1/history/{id}/export", "12"), ("/v1/history/x", "/v1/history/{id}", "x"),
    ] as [(String, String, String?)])
    func paths(path: String, route: String, id: String?) {
        let found = SpeechServer.historyRoute(path)
        #expect(found?.route == route && found?.id == id)
        #expect(SpeechServer.route(path) == route)
    }

    @Test("other paths are not history routes", arguments: ["/v1/historyx", "/v1/history/1/delete", "/v1/history/1/export/2", "/v1/models"])
    func otherPaths(path: String) {
        #expect(SpeechServer.historyRoute(path) == nil)
    }

    @Test("a search groups its hits by session, and marks the words in JavaScript's string offsets")
    func searchBodies() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aural-history-routes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try TranscriptStore(url: folder.appendingPathComponent("history.sqlite3"))
        let first = try store.beginSession(.init(source: "café.wav (upload)", locale: Locale(identifier: "en"), model: "tiny.en"))
        try store.append(segment(0, " Café 🎉 wisdom and more wisdom."), to: first)
        try store.append(segment(1, " Nothing here."), to: first)
        try store.endSession(first, audioDuration: 4)
        let second = try store.beginSession(.init(source: "Live (aural serve)", locale: Locale(identifier: "en")))
        try store.append(segment(0, " The age of wisdom."), to: second)

        let sessions = HistorySessionBody.grouping(try store.search("wisdom"))
        #expect(Set(sessions.map(\.id)) == [first.rawValue, second.rawValue])
        for session in sessions {
            for match in session.matches ?? [] {
                let utf16 = Array(match.text.utf16)
                for range in match.highlights {
                    #expect(String(decoding: utf16[range[0]..<range[1]], as: UTF16.self).lowercased() == "wisdom")
                }
            }
        }
        let listed = try store.sessions().map { HistorySessionBody($0) }
        #expect(listed.map(\.id) == [second.rawValue, first.rawValue])  // newest first
        #expect(listed[1].duration == 4 && listed[1].language == "en" && listed[1].ended_at != nil && listed[0].ended_at == nil)
        let json = String(decoding: TranscriptionResponse.encode(HistoryListBody(data: listed)), as: UTF8.self)
        #expect(json.contains(#""ended_at":null"#) && json.contains(#""model":null"#) && !json.contains("matches"))

        let transcript = HistoryTranscriptBody(try store.transcript(first))
        #expect(transcript.text == "Café 🎉 wisdom and more wisdom. Nothing here.")
        #expect(transcript.segments.map(\.text) == ["Café 🎉 wisdom and more wisdom.", "Nothing here."])
    }

    @Test("a server without history answers 404 history_disabled")
    func disabled() {
        #expect {
            _ = try ServerHistory(url: nil).requireStore()
        } throws: { error in
            (error as? APIError)?.status == 404 && (error as? APIError)?.code == "history_disabled"
        }
    }

    @Test("an unknown session is a 404 naming the id")
    func unknownSession() {
        let error = APIError.history(.sessionNotFound(TranscriptStore.SessionID(rawValue: 7)))
        #expect(error.status == 404 && error.param == "id" && error.code == "session_not_found")
    }

    private func segment(_ index: Int, _ text: String) -> Segment {
        Segment(
            id: index, seek: 0, start: Double(index) * 2, end: Double(index) * 2 + 2, text: text, tokens: [], temperature: 0,
            avgLogprob: 0, compressionRatio: 1, noSpeechProb: 0, words: nil)
    }
}
