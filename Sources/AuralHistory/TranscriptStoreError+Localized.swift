import AuralKit
import Foundation

extension TranscriptStoreError: LocalizedError {
    /// One sentence saying what went wrong, naming the database file or the session.
    public var errorDescription: String? {
        switch self {
        case .corrupt(let path, _): "The transcript history at \(path) is damaged."
        case .locked(let path): "The transcript history at \(path) is locked by another process."
        case .newerSchema(let path, _, _): "The transcript history at \(path) was written by a newer version of AuralKit."
        case .notHistory(let path): "The file \(path) is not an AuralKit transcript history."
        case .cannotOpen(let path, _): "The transcript history at \(path) cannot be opened."
        case .readOnly(let path): "The transcript history at \(path) cannot be written."
        case .diskFull(let path): "The disk holding the transcript history at \(path) is full."
        case .sessionNotFound(let id): "There is no session \(id) in the transcript history."
        case .failed(let path, _, _): "The transcript history at \(path) could not be used."
        }
    }

    /// The evidence: what SQLite or the file system reported.
    public var failureReason: String? {
        switch self {
        case .corrupt(_, let reason): "SQLite reports: \(reason)."
        case .locked: "Another program held the database's write lock for longer than the busy timeout."
        case .newerSchema(_, let version, let supported):
            "Its schema is version \(version); this version of AuralKit knows versions up to \(supported)."
        case .notHistory: "It is a SQLite database, but it belongs to another program."
        case .cannotOpen(_, let reason): "The system reports: \(reason)."
        case .readOnly: "The file or its folder is read-only for this user, or it is on a read-only file system."
        case .diskFull: "SQLite could not write the next page: no space is left on the device."
        case .sessionNotFound: "It was never stored, or it has been deleted."
        case .failed(_, let code, let reason): "SQLite reports error \(code): \(reason)."
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .corrupt:
            "Move the file aside (keep it: SQLite's .recover command can often rescue its contents) and open the "
                + "store again to start a new history, or give TranscriptStore another file."
        case .locked:
            "Wait for the other program to finish and try again, or give TranscriptStore another file."
        case .newerSchema:
            "Use the newer AuralKit that wrote it, or give TranscriptStore another file."
        case .notHistory:
            "Give TranscriptStore another file; this one is left as it is."
        case .cannotOpen:
            "Check that the folder exists or can be created, and that this user may write to it; or give "
                + "TranscriptStore another file (AURALKIT_HISTORY)."
        case .readOnly:
            "Make the file and its folder writable for this user, or give TranscriptStore another file (AURALKIT_HISTORY)."
        case .diskFull:
            "Free some space on that disk, or give TranscriptStore a file on another disk (AURALKIT_HISTORY)."
        case .sessionNotFound:
            "List the stored sessions with TranscriptStore's sessions(limit:) for their identifiers."
        case .failed:
            "Try again; if it keeps failing, move the file aside and start a new history."
        }
    }
}
