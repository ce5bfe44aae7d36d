import AuralKit
import CSQLite
import Foundation

/// A failed SQLite call: its primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …) and SQLite's message.
struct SQLiteError: Error, Equatable {
    /// The primary result code (the low byte of the extended code).
    var code: Int32
    /// `sqlite3_errmsg` at the time of the failure, or `sqlite3_errstr` of the code when there was no connection.
    var message: String
}

/// One SQLite connection: the only owner of the `sqlite3` pointer, closed in `deinit`.
///
/// Not thread-safe by itself; `TranscriptStore` serialises every use behind a lock. Statements are prepared, run
/// and finalized within one call, so no statement outlives the call that made it.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens (and with `create`, creates) the database file at `path`.
    /// - Throws: `SQLiteError`; a missing directory or file without `create`, or one that cannot be written, is
    ///   `SQLITE_CANTOPEN`. A file that is not a database is only found by the first statement (`SQLITE_NOTADB`).
    init(path: String, create: Bool = true) throws(SQLiteError) {
        var pointer: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let status = sqlite3_open_v2(path, &pointer, flags, nil)
        guard status == SQLITE_OK, let pointer else {
            let error = SQLiteError(
                code: status & 0xff,
                message: pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status)))
            sqlite3_close_v2(pointer)
            throw error
        }
        handle = pointer
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for another connection's lock before a statement fails with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that take no parameters and return no rows the caller needs.
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw lastError(status) }
    }

    /// Runs one statement with `parameters` bound to `?1`, `?2`, … and returns every row it produced.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw lastError(prepared) }
        defer { sqlite3_finalize(statement) }
        for (index, parameter) in parameters.enumerated() {
            let status = bind(parameter, at: Int32(index + 1), in: statement)
            guard status == SQLITE_OK else { throw lastError(status) }
        }
        var rows: [SQLiteRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw lastError(status) }
            let count = sqlite3_column_count(statement)
            rows.append(SQLiteRow(values: (0..<count).map { column(at: $0, in: statement) }))
        }
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows the last INSERT, UPDATE or DELETE changed (not counting those changed by triggers or cascades).
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so a locked database
    /// fails here, after the busy timeout, rather than halfway through. Commits when `body` returns, rolls back
    /// when it throws.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func lastError(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xff, message: String(cString: sqlite3_errmsg(handle)))
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(statement, index)
        case .integer(let number): return sqlite3_bind_int64(statement, index, number)
        case .real(let number): return sqlite3_bind_double(statement, index, number)
        case .text(let text):
            // SQLITE_TRANSIENT (a C macro Swift cannot import): SQLite copies the bytes before this call returns.
            return sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    private func column(at index: Int32, in statement: OpaquePointer) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_NULL: return .null
        default: return .text(sqlite3_column_text(statement, index).map { String(cString: $0) } ?? "")
        }
    }
}

/// A value bound to a statement or read from a row.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// `nil` as NULL.
    init(_ text: String?) { self = text.map(SQLiteValue.text) ?? .null }

    /// `nil` as NULL.
    init(_ number: Double?) { self = number.map(SQLiteValue.real) ?? .null }
}

/// One row of a query's result, read by column index.
struct SQLiteRow {
    var values: [SQLiteValue]

    /// The column as an integer; NULL and text read as nil, a real is truncated.
    func integer(_ index: Int) -> Int64? {
        switch values[index] {
        case .integer(let number): return number
        case .real(let number): return Int64(exactly: number.rounded(.towardZero))
        default: return nil
        }
    }

    /// The column as a real; NULL and text read as nil.
    func real(_ index: Int) -> Double? {
        switch values[index] {
        case .integer(let number): return Double(number)
        case .real(let number): return number
        default: return nil
        }
    }

    /// The column as text; NULL reads as nil, numbers as their decimal form.
    func text(_ index: Int) -> String? {
        switch values[index] {
        case .text(let text): return text
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .null: return nil
        }
    }
}
