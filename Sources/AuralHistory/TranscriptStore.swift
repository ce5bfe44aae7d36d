import AuralKit
import AuralWhisper
import Foundation
import Synchronization

/// Transcript history in a SQLite database: sessions (what was transcribed, when, in which language, with which
/// model) and their final results with word times and confidences, searchable by full text.
///
/// ```swift
/// let store = try TranscriptStore(url: TranscriptStore.defaultURL())
/// let session = SpeechSession(locale: Locale(identifier: "en"), model: "tiny.en")
/// let id = try store.beginSession(.init(source: recording.path, locale: session.locale, model: "tiny.en"))
/// for try await result in session.streamTranscription(from: recording) {  // or startTranscribing() for live audio
///     try store.append(result, to: id)  // stores final results, skips volatile ones
/// }
/// try store.endSession(id)
/// for hit in try store.search("better") {
///     print(hit.session.id, hit.text)
/// }
/// ```
///
/// Every `append` is its own committed transaction, so a process that is killed loses nothing that was final (the
/// database syncs with `synchronous = NORMAL`: a power cut may lose the last commits, never the file). The
/// database runs in WAL mode: readers (another `aural history list`) never wait for the writer, and a second
/// writer waits up to the busy timeout. Its schema carries a version (`PRAGMA user_version`) and older databases
/// are migrated when opened.
///
/// - Note: A synchronous, internally locked class rather than an actor: a call is one short transaction (well under a
///   millisecond of CPU plus a write to the page cache), so a live loop calls `append` inline, from any thread or
///   actor, without awaiting. Calls from several threads are serialised. While another process holds the write
///   lock, a write blocks its caller up to the busy timeout before it throws `.locked`: a caller on the main actor
///   that must never stall passes a short `busyTimeout`, or calls from a task of its own.
public final class TranscriptStore: Sendable {
    /// The database file.
    public let url: URL
    private let connection: Mutex<SQLiteConnection>

    /// Opens the history at `url`, creating the file and its folder when missing and migrating an older schema.
    ///
    /// - Parameters:
    ///   - url: The database file (see `defaultURL(environment:)`).
    ///   - busyTimeout: How long a write waits for another process's lock before it fails with `.locked`.
    /// - Throws: `TranscriptStoreError`: `.corrupt` for a file that is not a database or is damaged, `.locked`,
    ///   `.newerSchema`, `.notHistory` for another program's database, `.cannotOpen` or `.readOnly` for a folder or
    ///   file this user may not write, `.diskFull`.
    public init(url: URL, busyTimeout: Duration = .seconds(5)) throws(TranscriptStoreError) {
        self.url = url
        let path = url.path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .cannotOpen(path: path, reason: "It is a folder")
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        let opened: SQLiteConnection
        do {
            opened = try SQLiteConnection(path: path)
            let (seconds, attoseconds) = busyTimeout.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            opened.setBusyTimeout(milliseconds: Int32(clamping: milliseconds))
            try opened.execute("PRAGMA foreign_keys = ON")
            try Self.checkOwner(opened, path: path)
            try opened.query("PRAGMA journal_mode = WAL")
            try opened.execute("PRAGMA synchronous = NORMAL")
            try Self.migrate(opened, path: path)
        } catch let error as SQLiteError {
            throw TranscriptStoreError(error, path: path)
        } catch let error as TranscriptStoreError {
            throw error
        } catch {
            throw .failed(path: path, code: -1, reason: Self.reason(error))
        }
        connection = Mutex(opened)
    }

    /// Where the history lives unless told otherwise: `$AURALKIT_HISTORY`, else
    /// `$XDG_DATA_HOME/auralkit/history.sqlite3`, else `~/.local/share/auralkit/history.sqlite3` (the XDG default).
    /// Empty or relative values of `XDG_DATA_HOME` are ignored, as the XDG specification says.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment["AURALKIT_HISTORY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let data: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            data = home.appendingPathComponent(".local/share", isDirectory: true)
        }
        return data.appendingPathComponent("auralkit/history.sqlite3")
    }

    // MARK: - Writing

    /// Stores a new session and returns its identifier; its results follow with `append`.
    public func beginSession(_ info: SessionInfo) throws(TranscriptStoreError) -> SessionID {
        try withConnection { connection in
            try connection.query(
                "INSERT INTO sessions (started_at, source, locale, model, language_probability) VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .real(info.startedAt.timeIntervalSince1970), .text(info.source), SQLiteValue(info.locale?.identifier),
                    SQLiteValue(info.model), SQLiteValue(info.languageProbability),
                ])
            return SessionID(rawValue: connection.lastInsertRowID)
        }
    }

    /// Stores a final result at the end of the session's results, with its words (the runs' `audioTimeRange` and
    /// `transcriptionConfidence`, where the session's attribute options asked for them), and commits at once.
    ///
    /// - Returns: Whether it was stored: a volatile result (`isFinal == false`) is skipped, so a live loop can pass
    ///   every result it gets.
    /// - Throws: `.sessionNotFound` for an unknown or deleted session, or a database error.
    @discardableResult
    public func append(_ result: SpeechTranscriber.Result, to session: SessionID) throws(TranscriptStoreError) -> Bool {
        guard result.isFinal else { return false }
        try insert(StoredResult(result), into: session)
        return true
    }

    /// Stores a segment of a file transcription at the end of the session's results, with its words and the
    /// engine's details (tokens, temperature, scores), and commits at once.
    /// - Throws: `.sessionNotFound` for an unknown or deleted session, or a database error.
    public func append(_ segment: Segment, to session: SessionID) throws(TranscriptStoreError) {
        try insert(StoredResult(segment), into: session)
    }

    /// Records the session's end. Safe to call more than once (the last call wins) or never: a session that was
    /// not ended keeps its results and shows no end.
    /// - Parameters:
    ///   - end: When the session ended (now by default).
    ///   - audioDuration: Seconds of audio transcribed, when known (a file's duration); otherwise the end of the
    ///     last result stands for it.
    public func endSession(
        _ id: SessionID, at end: Date = Date(), audioDuration: Double? = nil
    ) throws(TranscriptStoreError) {
        try withConnection { connection in
            try connection.query(
                "UPDATE sessions SET ended_at = ?2, audio_duration = coalesce(?3, audio_duration) WHERE id = ?1",
                [.integer(id.rawValue), .real(end.timeIntervalSince1970), SQLiteValue(audioDuration)])
            guard connection.changes > 0 else { throw TranscriptStoreError.sessionNotFound(id) }
        }
    }

    /// Deletes the session with its results, words and search entries.
    /// - Throws: `.sessionNotFound` when there is no such session.
    public func delete(_ id: SessionID) throws(TranscriptStoreError) {
        try withConnection { connection in
            try connection.query("DELETE FROM sessions WHERE id = ?1", [.integer(id.rawValue)])
            guard connection.changes > 0 else { throw TranscriptStoreError.sessionNotFound(id) }
        }
    }

    // MARK: - Reading

    /// The most recent sessions, newest first.
    /// - Parameter limit: At most this many sessions.
    public func sessions(limit: Int = 50) throws(TranscriptStoreError) -> [Session] {
        try withConnection { connection in
            try connection.query(
                Self.sessionSelect + " ORDER BY s.started_at DESC, s.id DESC LIMIT ?1", [.integer(Int64(max(limit, 0)))])
                .map { try Self.session(from: $0, connection: connection) }
        }
    }

    /// The session with this identifier.
    /// - Throws: `.sessionNotFound` when there is none.
    public func session(_ id: SessionID) throws(TranscriptStoreError) -> Session {
        try withConnection { connection in try Self.session(id, connection: connection) }
    }

    /// The session with its final results in order: to show it, or to export it through a transcript writer.
    /// - Throws: `.sessionNotFound` when there is none.
    public func transcript(_ id: SessionID) throws(TranscriptStoreError) -> Transcript {
        try withConnection { connection in
            let session = try Self.session(id, connection: connection)
            let rows = try connection.query(
                """
                SELECT id, text, start_seconds, end_seconds, engine_details FROM results
                WHERE session_id = ?1 ORDER BY position
                """,
                [.integer(id.rawValue)])
            var words: [Int64: [StoredWord]] = [:]
            let wordRows = try connection.query(
                """
                SELECT w.result_id, w.text, w.start_seconds, w.end_seconds, w.confidence FROM words w
                JOIN results r ON r.id = w.result_id WHERE r.session_id = ?1 ORDER BY w.result_id, w.position
                """, [.integer(id.rawValue)])
            for row in wordRows {
                words[row.integer(0) ?? 0, default: []].append(
                    StoredWord(text: row.text(1) ?? "", start: row.real(2), end: row.real(3), confidence: row.real(4)))
            }
            let entries = rows.map { row in
                StoredResult(
                    text: row.text(1) ?? "", start: row.real(2) ?? 0, end: row.real(3) ?? 0,
                    words: words[row.integer(0) ?? 0] ?? [],
                    details: row.text(4).flatMap { try? JSONDecoder().decode(EngineDetails.self, from: Data($0.utf8)) })
            }
            return Transcript(session: session, entries: entries)
        }
    }

    // MARK: - Internals

    /// Runs `body` on the connection under the lock; every error leaves as a `TranscriptStoreError`.
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws(TranscriptStoreError) -> T {
        do {
            return try connection.withLock { connection in try body(connection) }
        } catch let error as TranscriptStoreError {
            throw error
        } catch let error as SQLiteError {
            throw TranscriptStoreError(error, path: url.path)
        } catch {
            throw .failed(path: url.path, code: -1, reason: Self.reason(error))
        }
    }

    private func insert(_ result: StoredResult, into session: SessionID) throws(TranscriptStoreError) {
        let details: SQLiteValue
        if let engine = result.details {
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            details = (try? encoder.encode(engine)).map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null
        } else {
            details = .null
        }
        try withConnection { connection in
            try connection.writeTransaction {
                let exists = try connection.query("SELECT 1 FROM sessions WHERE id = ?1", [.integer(session.rawValue)])
                guard !exists.isEmpty else { throw TranscriptStoreError.sessionNotFound(session) }
                try connection.query(
                    """
                    INSERT INTO results (session_id, position, text, start_seconds, end_seconds, engine_details)
                    VALUES (?1, (SELECT coalesce(max(position) + 1, 0) FROM results WHERE session_id = ?1), ?2, ?3, ?4, ?5)
                    """,
                    [.integer(session.rawValue), .text(result.text), .real(result.start), .real(result.end), details])
                let resultID = connection.lastInsertRowID
                for (position, word) in result.words.enumerated() {
                    try connection.query(
                        """
                        INSERT INTO words (result_id, position, text, start_seconds, end_seconds, confidence)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                        """,
                        [
                            .integer(resultID), .integer(Int64(position)), .text(word.text), SQLiteValue(word.start),
                            SQLiteValue(word.end), SQLiteValue(word.confidence),
                        ])
                }
            }
        }
    }

    /// The columns `session(from:connection:)` reads, in order.
    static let sessionSelect = """
        SELECT s.id, s.source, s.locale, s.model, s.started_at, s.ended_at, s.audio_duration, s.language_probability,
            (SELECT count(*) FROM results r WHERE r.session_id = s.id),
            (SELECT max(end_seconds) FROM results r WHERE r.session_id = s.id)
        FROM sessions s
        """

    static func session(_ id: SessionID, connection: SQLiteConnection) throws -> Session {
        guard let row = try connection.query(sessionSelect + " WHERE s.id = ?1", [.integer(id.rawValue)]).first else {
            throw TranscriptStoreError.sessionNotFound(id)
        }
        return try session(from: row, connection: connection)
    }

    static func session(from row: SQLiteRow, connection: SQLiteConnection) throws -> Session {
        let id = row.integer(0) ?? 0
        let firstTexts = try connection.query(
            "SELECT text FROM results WHERE session_id = ?1 ORDER BY position LIMIT 6", [.integer(id)])
        return Session(
            id: SessionID(rawValue: id), source: row.text(1) ?? "", locale: row.text(2).map(Locale.init(identifier:)),
            model: row.text(3), startedAt: Date(timeIntervalSince1970: row.real(4) ?? 0),
            endedAt: row.real(5).map(Date.init(timeIntervalSince1970:)), duration: row.real(6) ?? row.real(9) ?? 0,
            resultCount: Int(row.integer(8) ?? 0), preview: preview(firstTexts.compactMap { $0.text(0) }),
            languageProbability: row.real(7))
    }

    /// The first words of `texts`, whitespace collapsed, cut at a word boundary near `length` characters.
    static func preview(_ texts: [String], length: Int = 80) -> String {
        let words = texts.joined(separator: " ").split(whereSeparator: \.isWhitespace)
        var preview = ""
        for word in words {
            if !preview.isEmpty, preview.count + 1 + word.count > length { return preview + "…" }
            preview += (preview.isEmpty ? "" : " ") + word
        }
        return preview
    }

    static func reason(_ error: Error) -> String {
        (error as? LocalizedError)?.failureReason ?? error.localizedDescription
    }
}
