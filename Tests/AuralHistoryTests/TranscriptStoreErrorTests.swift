@testable import AuralHistory
@testable import AuralKit
@testable import Speech
import Foundation
import TestSupport
import Testing

@Suite("TranscriptStoreError")
struct TranscriptStoreErrorTests {
    static let cases: [TranscriptStoreError] = [
        .corrupt(path: "/h.sqlite3", reason: "file is not a database"),
        .locked(path: "/h.sqlite3"),
        .newerSchema(path: "/h.sqlite3", version: 9, supported: 3),
        .notHistory(path: "/h.sqlite3"),
        .cannotOpen(path: "/h.sqlite3", reason: "unable to open database file"),
        .readOnly(path: "/h.sqlite3"),
        .diskFull(path: "/h.sqlite3"),
        .sessionNotFound(TranscriptStore.SessionID(rawValue: 7)),
        .failed(path: "/h.sqlite3", code: 1, reason: "SQL logic error"),
    ]

    @Test("every case has a description, a reason and a suggestion, none naming the command line", arguments: cases)
    func texts(_ error: TranscriptStoreError) {
        for text in [error.errorDescription, error.failureReason, error.recoverySuggestion] {
            let text = text ?? ""
            #expect(!text.isEmpty)
            #expect(!text.contains("--") && !text.contains("aural "), "\(text)")
        }
    }

    @Test("a file that is not a database is .corrupt, and is left as it was")
    func notADatabase() throws {
        let history = try TemporaryHistory()
        let garbage = Data(String(repeating: "this is not a database\n", count: 400).utf8)
        try garbage.write(to: history.url)
        #expect {
            _ = try TranscriptStore(url: history.url)
        } throws: { error in
            guard case TranscriptStoreError.corrupt(let path, _) = error else { return false }
            return path == history.url.path
        }
        #expect(try Data(contentsOf: history.url) == garbage)
    }

    @Test("a database with damaged pages is .corrupt when they are read")
    func damagedPages() throws {
        let history = try TemporaryHistory()
        do {
            let store = try TranscriptStore(url: history.url)
            let id = try store.beginSession(.init(source: "a"))
            for index in 0..<200 {
                try store.append(TranscriptStoreTests.result([(" word number \(index) of many", Double(index), Double(index) + 1)]), to: id)
            }
            _ = try store.withConnection { try $0.query("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        // Overwrite every page after the first (the header and schema) with noise.
        let handle = try FileHandle(forUpdating: history.url)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((0..<Int(size) - 4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        try handle.close()
        #expect {
            let store = try TranscriptStore(url: history.url)
            _ = try store.sessions()
            _ = try store.search("word")
        } throws: { error in
            if case TranscriptStoreError.corrupt = error { return true }
            return false
        }
    }

    @Test("a write while another connection holds the lock fails with .locked after the busy timeout")
    func locked() throws {
        let history = try TemporaryHistory()
        _ = try TranscriptStore(url: history.url)
        let other = try SQLiteConnection(path: history.url.path)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        let started = ContinuousClock.now
        #expect(throws: TranscriptStoreError.locked(path: history.url.path)) {
            let store = try TranscriptStore(url: history.url, busyTimeout: .milliseconds(300))
            _ = try store.beginSession(.init(source: "microphone"))
        }
        #expect(started.secondsAgo >= 0.25)
    }

    @Test("a full disk is .diskFull, and what was committed before stays readable")
    func diskFull() throws {
        let history = try TemporaryHistory()
        let store = try TranscriptStore(url: history.url)
        let id = try store.beginSession(.init(source: "microphone"))
        try store.append(TranscriptStoreTests.result([(" Before", 0, 1)]), to: id)
        // SQLite's page limit stands in for the device filling up: both end a write with SQLITE_FULL.
        _ = try store.withConnection { connection in
            let pages = try connection.query("PRAGMA page_count").first?.integer(0) ?? 0
            return try connection.query("PRAGMA max_page_count = \(pages)").first?.integer(0)
        }
        let long = (0..<2000).map { (" word\($0)", Double($0), Double($0) + 1) }
        #expect(throws: TranscriptStoreError.diskFull(path: history.url.path)) {
            for _ in 0..<20 { try store.append(TranscriptStoreTests.result(long), to: id) }
        }
        #expect(try store.transcript(id).text == " Before")
    }

    @Test("a newer schema is refused with both versions; another program's database is .notHistory")
    func foreignDatabases() throws {
        let history = try TemporaryHistory()
        _ = try TranscriptStore(url: history.url)
        try SQLiteConnection(path: history.url.path).execute("PRAGMA user_version = 42")
        #expect(throws: TranscriptStoreError.newerSchema(path: history.url.path, version: 42, supported: 3)) {
            try TranscriptStore(url: history.url)
        }

        let foreign = history.folder.appendingPathComponent("other.db")
        try SQLiteConnection(path: foreign.path).execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')")
        #expect(throws: TranscriptStoreError.notHistory(path: foreign.path)) { try TranscriptStore(url: foreign) }
    }

    @Test("a path under a regular file, or a folder, cannot be opened")
    func cannotOpen() throws {
        let history = try TemporaryHistory()
        let file = history.folder.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        #expect {
            try TranscriptStore(url: file.appendingPathComponent("history.sqlite3"))
        } throws: { error in
            if case TranscriptStoreError.cannotOpen = error { return true }
            return false
        }
        #expect {
            try TranscriptStore(url: history.folder)
        } throws: { error in
            if case TranscriptStoreError.cannotOpen = error { return true }
            return false
        }
    }
}
