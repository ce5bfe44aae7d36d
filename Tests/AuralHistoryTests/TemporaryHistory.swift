@testable import AuralHistory
import Foundation

/// A fresh folder for one test's history database, removed when the value goes away.
struct TemporaryHistory: ~Copyable {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-history-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The database file in the folder (not created).
    var url: URL { folder.appendingPathComponent("history.sqlite3") }
}
