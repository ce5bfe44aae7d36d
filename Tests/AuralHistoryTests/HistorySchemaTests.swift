@testable import AuralHistory
@testable import AuralKit
@testable import Speech
import Foundation
import Testing

@Suite("HistorySchema")
struct HistorySchemaTests {
    /// Version 1 as it was released, written out here so that an edit to the released migration fails this test.
    static let version1 = """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY, started_at REAL NOT NULL, ended_at REAL, source TEXT NOT NULL, locale TEXT, model TEXT
        );
        CREATE TABLE results (
            id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            position INTEGER NOT NULL, text TEXT NOT NULL, start_seconds REAL NOT NULL, end_seconds REAL NOT NULL,
            UNIQUE (session_id, position)
        );
        CREATE TABLE words (
            result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, position INTEGER NOT NULL,
            text TEXT NOT NULL, start_seconds REAL, end_seconds REAL, confidence REAL, PRIMARY KEY (result_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_start ON sessions (started_at);
        PRAGMA user_version = 1;
        PRAGMA application_id = 1095452755;
        INSERT INTO sessions (id, started_at, ended_at, source, locale, model) VALUES (1, 1700000000, 1700000060, 'old.wav', 'en', 'base');
        INSERT INTO results (id, session_id, position, text, start_seconds, end_seconds)
            VALUES (1, 1, 0, ' It was the best of times.', 0, 2.5), (2, 1, 1, ' It was the worst of times.', 2.5, 5);
        INSERT INTO words VALUES (1, 0, ' It', 0, 0.3, 0.9), (1, 1, ' was', 0.3, 0.6, 0.8);
        """

    @Test("a version 1 database opens, is migrated to the latest version, and keeps and indexes its sessions")
    func migratesVersion1() throws {
        let history = try TemporaryHistory()
        try SQLiteConnection(path: history.url.path).execute(Self.version1)

        let store = try TranscriptStore(url: history.url)
        let version = try store.withConnection { try $0.query("PRAGMA user_version").first?.integer(0) }
        #expect(version == Int64(HistorySchema.latestVersion))
        #expect(HistorySchema.latestVersion == 3)
        #expect(HistorySchema.applicationID == 1_095_452_755)

        let old = TranscriptStore.SessionID(rawValue: 1)
        let transcript = try store.transcript(old)
        #expect(transcript.text == " It was the best of times. It was the worst of times.")
        #expect(transcript.session.duration == 5)
        #expect(transcript.session.model == "base")
        #expect(transcript.segments.first?.words?.map(\.word) == [" It", " was"])
        #expect(try store.search("worst").map(\.session.id) == [old])  // the index was filled from the old rows

        try store.append(TranscriptStoreTests.result([(" Then", 5, 6)]), to: old)
        try store.endSession(old, audioDuration: 6)
        #expect(try store.session(old).duration == 6)

        // Opening again finds nothing to do.
        _ = try TranscriptStore(url: history.url)
        let check = try store.withConnection { try $0.query("PRAGMA integrity_check").first?.text(0) }
        #expect(check == "ok")
    }

    @Test("a new database gets every migration and the application id")
    func newDatabase() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let (version, application) = try store.withConnection { connection in
            (try connection.query("PRAGMA user_version").first?.integer(0), try connection.query("PRAGMA application_id").first?.integer(0))
        }
        #expect(version == 3)
        #expect(application == Int64(HistorySchema.applicationID))
    }
}
