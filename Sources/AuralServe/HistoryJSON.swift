import AuralHistory
import AuralWhisper
import Foundation

/// A stored session as the history routes answer it.
struct HistorySessionBody: Encodable {
    /// A stored result that matched a search: where it was heard, its text, and the matching words' places in
    /// `text` as `[from, to)` offsets in UTF-16 code units (JavaScript's string indices).
    struct Match: Encodable {
        var start: Double
        var end: Double
        var text: String
        var highlights: [[Int]]
    }

    var id: Int64
    var object = "history.session"
    var source: String
    /// The language code, or null when unknown.
    var language: String?
    var model: String?
    /// Seconds since 1970.
    var started_at: Double
    /// Seconds since 1970, or null for a session that has not ended (or whose process stopped first).
    var ended_at: Double?
    /// Seconds of audio.
    var duration: Double
    var result_count: Int
    var preview: String
    /// With `query` only: the session's results that matched, best first.
    var matches: [Match]?

    init(_ session: TranscriptStore.Session, matches: [Match]? = nil) {
        id = session.id.rawValue
        source = session.source
        language = session.locale?.identifier
        model = session.model
        started_at = session.startedAt.timeIntervalSince1970
        ended_at = session.endedAt?.timeIntervalSince1970
        duration = session.duration
        result_count = session.resultCount
        preview = session.preview
        self.matches = matches
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(object, forKey: .object)
        try container.encode(source, forKey: .source)
        try container.encode(language, forKey: .language)  // null rather than left out, as ended_at and model
        try container.encode(model, forKey: .model)
        try container.encode(started_at, forKey: .started_at)
        try container.encode(ended_at, forKey: .ended_at)
        try container.encode(duration, forKey: .duration)
        try container.encode(result_count, forKey: .result_count)
        try container.encode(preview, forKey: .preview)
        try container.encodeIfPresent(matches, forKey: .matches)
    }

    private enum CodingKeys: String, CodingKey {
        case id, object, source, language, model, started_at, ended_at, duration, result_count, preview, matches
    }

    /// Search hits grouped by session, sessions in the order of their best hit, hits in rank order within each.
    static func grouping(_ hits: [TranscriptStore.SearchHit]) -> [HistorySessionBody] {
        var order: [TranscriptStore.SessionID] = []
        var grouped: [TranscriptStore.SessionID: HistorySessionBody] = [:]
        for hit in hits {
            let match = Match(
                start: hit.range.start.seconds, end: hit.range.end.seconds, text: hit.text,
                highlights: hit.matches.map {
                    [hit.text.utf16.distance(from: hit.text.startIndex, to: $0.lowerBound),
                     hit.text.utf16.distance(from: hit.text.startIndex, to: $0.upperBound)]
                })
            if grouped[hit.session.id] == nil {
                order.append(hit.session.id)
                grouped[hit.session.id] = HistorySessionBody(hit.session, matches: [])
            }
            grouped[hit.session.id]?.matches?.append(match)
        }
        return order.compactMap { grouped[$0] }
    }
}

/// `GET /v1/history`'s body, as OpenAI lists things.
struct HistoryListBody: Encodable {
    var object = "list"
    var data: [HistorySessionBody]
}

/// `GET /v1/history/{id}`'s body: the session, its whole text, and its segments as an export writes them.
struct HistoryTranscriptBody: Encodable {
    struct Segment: Encodable {
        var id: Int
        var start: Double
        var end: Double
        var text: String
    }

    var object = "history.transcript"
    var session: HistorySessionBody
    var text: String
    var segments: [Segment]

    init(_ transcript: TranscriptStore.Transcript) {
        session = HistorySessionBody(transcript.session)
        let segments = transcript.segments
        text = segments.map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
        self.segments = segments.map {
            Segment(id: $0.id, start: $0.start, end: $0.end, text: $0.text.trimmingCharacters(in: .whitespaces))
        }
    }
}
