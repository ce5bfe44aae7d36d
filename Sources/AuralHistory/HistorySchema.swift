import AuralKit
/// The history database's schema: ordered migrations, the database's version in `PRAGMA user_version`.
///
/// Migration `n` takes a database at version `n - 1` to version `n`; a new database runs them all. Migrations are
/// added at the end and never edited once released, since databases in the field are at their versions.
/// Times are seconds: session start and end since 1970 (UTC), result and word times from the start of the
/// session's audio. Real numbers are stored as 8-byte IEEE doubles, so times read back exactly as written.
enum HistorySchema {
    /// Written to `PRAGMA application_id`, so that a file is known as AuralKit history ("AKHS").
    static let applicationID: Int32 = 0x414B_4853

    /// The statements of each migration, in order; the index plus one is the version it produces.
    static let migrations: [String] = [version1, version2, version3]

    /// The version this code writes: the number of migrations.
    static var latestVersion: Int { migrations.count }

    /// Sessions, their final results in order and each result's words.
    static let version1 = """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            started_at REAL NOT NULL,
            ended_at REAL,
            source TEXT NOT NULL,
            locale TEXT,
            model TEXT
        );
        CREATE TABLE results (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            start_seconds REAL NOT NULL,
            end_seconds REAL NOT NULL,
            UNIQUE (session_id, position)
        );
        CREATE TABLE words (
            result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            start_seconds REAL,
            end_seconds REAL,
            confidence REAL,
            PRIMARY KEY (result_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_start ON sessions (started_at);
        """

    /// Full-text search over result text: an FTS5 index kept in step with `results` by triggers, filled from the
    /// results already stored. Porter stemming, so "cities" finds "city"; diacritics folded, so "cafe" finds "café".
    static let version2 = """
        CREATE VIRTUAL TABLE results_search USING fts5(
            text, content='results', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER results_search_insert AFTER INSERT ON results BEGIN
            INSERT INTO results_search (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER results_search_delete AFTER DELETE ON results BEGIN
            INSERT INTO results_search (results_search, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER results_search_update AFTER UPDATE OF text ON results BEGIN
            INSERT INTO results_search (results_search, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO results_search (rowid, text) VALUES (new.id, new.text);
        END;
        INSERT INTO results_search (results_search) VALUES ('rebuild');
        """

    /// What a file transcription knows beyond the text: the audio's duration and the language's probability per
    /// session, and the engine's segment details per result (JSON: seek, tokens, temperature, avg_logprob,
    /// compression_ratio, no_speech_prob), so that a JSON export carries them as `aural transcribe` wrote them.
    static let version3 = """
        ALTER TABLE sessions ADD COLUMN audio_duration REAL;
        ALTER TABLE sessions ADD COLUMN language_probability REAL;
        ALTER TABLE results ADD COLUMN engine_details TEXT;
        """
}
