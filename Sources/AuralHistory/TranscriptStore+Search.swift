import AuralKit
import Foundation

extension TranscriptStore {
    /// The stored results whose text holds every word of `text`, best match first (SQLite FTS5's bm25 ranking).
    ///
    /// Words match whole, by stem and without diacritics ("city" finds "cities", "cafe" finds "café"); a word
    /// ending in `*` matches as a prefix ("budg*"). Quotes and FTS5 operators in `text` are taken as plain words,
    /// so any input is a valid search. Text without a letter or digit finds nothing.
    /// - Parameter limit: At most this many hits.
    public func search(_ text: String, limit: Int = 50) throws(TranscriptStoreError) -> [SearchHit] {
        guard let query = Self.ftsQuery(text) else { return [] }
        return try withConnection { connection in
            let rows = try connection.query(
                """
                SELECT r.session_id, r.start_seconds, r.end_seconds, highlight(results_search, 0, char(2), char(3))
                FROM results_search JOIN results r ON r.id = results_search.rowid
                WHERE results_search MATCH ?1 ORDER BY bm25(results_search), r.id LIMIT ?2
                """, [.text(query), .integer(Int64(max(limit, 0)))])
            var sessions: [Int64: Session] = [:]
            return try rows.map { row in
                let id = row.integer(0) ?? 0
                let session = try sessions[id] ?? Self.session(SessionID(rawValue: id), connection: connection)
                sessions[id] = session
                let (plain, matches) = Self.unmark(row.text(3) ?? "")
                let start = CMTime(seconds: row.real(1) ?? 0, preferredTimescale: Int32(historyTimescale))
                let end = CMTime(seconds: row.real(2) ?? 0, preferredTimescale: Int32(historyTimescale))
                return SearchHit(
                    session: session, range: CMTimeRange(start: start, end: max(start, end)), text: plain, matches: matches)
            }
        }
    }

    /// An FTS5 query matching every word of `text`: each word a quoted string (quotes inside dropped), a trailing
    /// `*` kept as a prefix search. Nil when no word has a letter or digit.
    static func ftsQuery(_ text: String) -> String? {
        let terms = text.split(whereSeparator: \.isWhitespace).compactMap { word -> String? in
            let isPrefix = word.hasSuffix("*")
            let bare = word.filter { $0 != "\"" && $0 != "*" }
            guard bare.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
            return "\"\(bare)\"" + (isPrefix ? "*" : "")
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// Splits `highlight()`'s output into the plain text and the ranges between its markers (U+0002 … U+0003).
    static func unmark(_ marked: String) -> (String, [Range<String.Index>]) {
        var plain = ""
        var offsets: [(Int, Int)] = []
        var open: Int?
        for character in marked {
            switch character {
            case "\u{2}": open = plain.count
            case "\u{3}":
                if let start = open { offsets.append((start, plain.count)) }
                open = nil
            default: plain.append(character)
            }
        }
        let ranges = offsets.map { start, end in
            plain.index(plain.startIndex, offsetBy: start)..<plain.index(plain.startIndex, offsetBy: end)
        }
        return (plain, ranges)
    }
}
