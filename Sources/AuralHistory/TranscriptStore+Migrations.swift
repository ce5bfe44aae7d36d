import AuralKit
import Foundation

extension TranscriptStore {
    /// Refuses a file that holds another program's database, and one whose schema is newer than this code's.
    /// Reading the header is also where a file that is not a database shows itself (`SQLITE_NOTADB`).
    static func checkOwner(_ connection: SQLiteConnection, path: String) throws {
        let application = try connection.query("PRAGMA application_id").first?.integer(0) ?? 0
        let version = Int(try connection.query("PRAGMA user_version").first?.integer(0) ?? 0)
        if application != 0, application != Int64(HistorySchema.applicationID) {
            throw TranscriptStoreError.notHistory(path: path)
        }
        if application == 0, version == 0 {
            let objects = try connection.query("SELECT count(*) FROM sqlite_schema").first?.integer(0) ?? 0
            if objects > 0 { throw TranscriptStoreError.notHistory(path: path) }
        }
        if version > HistorySchema.latestVersion {
            throw TranscriptStoreError.newerSchema(path: path, version: version, supported: HistorySchema.latestVersion)
        }
    }

    /// Brings the schema to `HistorySchema.latestVersion`, running the missing migrations in order in one
    /// transaction: a failure (or a kill) leaves the database at its old version, untouched.
    static func migrate(_ connection: SQLiteConnection, path: String) throws {
        func version() throws -> Int { Int(try connection.query("PRAGMA user_version").first?.integer(0) ?? 0) }
        guard try version() < HistorySchema.latestVersion else { return }
        try connection.writeTransaction {
            // Read again under the write lock: another process may have migrated meanwhile.
            let current = try version()
            if current > HistorySchema.latestVersion {
                throw TranscriptStoreError.newerSchema(path: path, version: current, supported: HistorySchema.latestVersion)
            }
            for migration in HistorySchema.migrations.dropFirst(current) {
                try connection.execute(migration)
            }
            try connection.execute("PRAGMA user_version = \(HistorySchema.latestVersion)")
            try connection.execute("PRAGMA application_id = \(HistorySchema.applicationID)")
        }
    }
}
