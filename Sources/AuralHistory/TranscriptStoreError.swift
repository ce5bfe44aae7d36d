import AuralKit
import CSQLite
import Foundation

/// Why the transcript history could not be opened, read or written. Each case names the database file; the
/// `LocalizedError` texts say what was found and what to do (TranscriptStoreError+Localized.swift).
public enum TranscriptStoreError: Error, Sendable, Equatable {
    /// The file is not a SQLite database, or its pages are damaged.
    case corrupt(path: String, reason: String)
    /// Another process held the database's write lock for longer than the busy timeout.
    case locked(path: String)
    /// The database was written by a newer AuralKit, whose schema this one does not know.
    case newerSchema(path: String, version: Int, supported: Int)
    /// The file is a SQLite database of another program.
    case notHistory(path: String)
    /// The file or its folder cannot be created or opened (missing folder, no permission, not a regular file).
    case cannotOpen(path: String, reason: String)
    /// The database or its folder can be read but not written.
    case readOnly(path: String)
    /// The disk holding the database is full.
    case diskFull(path: String)
    /// No session has this identifier (never stored, or deleted).
    case sessionNotFound(TranscriptStore.SessionID)
    /// Any other SQLite failure, with SQLite's result code and message.
    case failed(path: String, code: Int32, reason: String)
}

extension TranscriptStoreError {
    /// The case for a failed SQLite call on the database at `path`; every SQLite error becomes a store error here.
    init(_ error: SQLiteError, path: String) {
        switch error.code {
        case SQLITE_BUSY, SQLITE_LOCKED: self = .locked(path: path)
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .corrupt(path: path, reason: error.message)
        case SQLITE_FULL: self = .diskFull(path: path)
        case SQLITE_READONLY: self = .readOnly(path: path)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: self = .cannotOpen(path: path, reason: error.message)
        default: self = .failed(path: path, code: error.code, reason: error.message)
        }
    }
}
