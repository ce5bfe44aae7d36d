@testable import AuralHistory
@testable import AuralKit
@testable import Speech
import Foundation
import TestSupport
import Testing

/// `aural transcribe --save` and `aural history …`, run as a user runs them, on real recordings with tiny.en.
@Suite("aural history", .heavyWork, .requiresFixtures(audio: ["beckett.wav", "two_cities.wav"], models: ["tiny.en"]))
struct HistoryCommandTests {
    /// A folder for one test's database, removed afterwards.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aural-history-\(UUID().uuidString)", isDirectory: true)
        var history: String { url.appendingPathComponent("history.sqlite3").path }

        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static let transcribe = ["transcribe", CLI.audio("beckett.wav"), "-m", "tiny.en", "--beam-size", "1", "-q"]

    @Test("transcribe --save stores the transcript; search finds it by a spoken word, list and show describe it")
    func saveAndSearch() throws {
        let folder = try Folder()
        let plain = try CLI.run(Self.transcribe)
        let saved = try CLI.run(Self.transcribe + ["--save", "--history", folder.history])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.isEmpty)
        #expect(saved.stdout == plain.stdout)

        let search = try CLI.run(["history", "search", "better", "--history", folder.history])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout == "1  0:08  beckett.wav  Fail [better].\n")
        let none = try CLI.run(["history", "search", "elephant", "--history", folder.history])
        #expect(none.stdout == "No matches.\n")

        let list = try CLI.run(["history", "list", "--history", folder.history])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = list.stdout.split(separator: "\n")
        #expect(rows.count == 2)
        #expect(rows.first?.hasPrefix("ID  STARTED") == true)
        #expect(rows.last?.hasPrefix("1 ") == true)
        let columns = rows.last?.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(columns?.count == 5)
        #expect(columns?.dropFirst(2) == ["0:10", "beckett.wav", "Ever tried, ever failed. No matter, try again. Fail again. Fail better."])

        let show = try CLI.run(["history", "show", "1", "--history", folder.history])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Source:    \(CLI.audio("beckett.wav"))\n"))
        #expect(show.stdout.contains("Model:     tiny.en\n"))
        #expect(show.stdout.contains("] Fail better.\n"))
    }

    @Test("export writes, byte for byte, what transcribe wrote for the same results", arguments: ["srt", "vtt", "txt"])
    func exportEqualsTranscribe(_ format: String) throws {
        let folder = try Folder()
        let transcribed = try CLI.run(["transcribe", CLI.audio("two_cities.wav"), "-m", "tiny.en", "--beam-size", "1", "-q", "-f", format, "--save", "--history", folder.history])
        #expect(transcribed.status == 0, "\(transcribed.stderr)")
        #expect(transcribed.stdout.count > 100)
        let exported = try CLI.run(["history", "export", "1", "--format", format, "--history", folder.history])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(Data(exported.stdout.utf8) == Data(transcribed.stdout.utf8))

        let file = folder.url.appendingPathComponent("out.\(format)")
        let written = try CLI.run(["history", "export", "1", "-f", format, "-o", file.path, "--history", folder.history])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.isEmpty)
        #expect(try Data(contentsOf: file) == Data(transcribed.stdout.utf8))
    }

    @Test("a JSON export equals transcribe's JSON but for its timings: same segments, tokens, scores and words")
    func exportJSON() throws {
        let folder = try Folder()
        let transcribed = try CLI.run(Self.transcribe + ["-f", "json", "--word-timestamps", "--save", "--history", folder.history])
        #expect(transcribed.status == 0, "\(transcribed.stderr)")
        let exported = try CLI.run(["history", "export", "1", "-f", "json", "--history", folder.history])
        #expect(exported.status == 0, "\(exported.stderr)")
        var expected = try #require(try JSONSerialization.jsonObject(with: Data(transcribed.stdout.utf8)) as? [String: Any])
        #expect(expected.removeValue(forKey: "timings") != nil)
        let actual = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: actual).isEqual(to: expected))
        #expect((actual["segments"] as? [[String: Any]])?.first?["words"] != nil)
    }

    @Test("a damaged database is a warning for transcribe (the transcript still comes) and an error for history")
    func corruptDatabase() throws {
        let folder = try Folder()
        try Data(String(repeating: "not a database\n", count: 300).utf8).write(to: URL(fileURLWithPath: folder.history))
        let plain = try CLI.run(Self.transcribe)
        let result = try CLI.run(Self.transcribe + ["--save", "--history", folder.history])
        #expect(result.status == 0)
        #expect(result.stdout == plain.stdout)
        #expect(result.stderr.hasPrefix("warning: The transcript history at \(folder.history) is damaged.\n"))
        #expect(result.stderr.contains("History is off for the rest of this run; transcription goes on."))
        #expect(result.stderr.contains("hint: Move it aside"))

        let list = try CLI.run(["history", "list", "--history", folder.history])
        #expect(list.status == 1)
        #expect(list.stderr.hasPrefix("error: The transcript history at \(folder.history) is damaged."))
    }

    @Test("a locked database is a warning for transcribe, which still prints the transcript")
    func lockedDatabase() throws {
        let folder = try Folder()
        _ = try TranscriptStore(url: URL(fileURLWithPath: folder.history))
        let other = try SQLiteConnection(path: folder.history)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        let plain = try CLI.run(Self.transcribe)
        let result = try CLI.run(Self.transcribe + ["--save", "--history", folder.history])
        #expect(result.status == 0)
        #expect(result.stdout == plain.stdout)
        #expect(result.stderr.hasPrefix("warning: The transcript history at \(folder.history) is locked by another process.\n"))
        #expect(result.stderr.contains("hint: Wait for the other aural process"))
    }

    @Test("kill -9 during transcribe --save keeps every segment written so far, and the database opens cleanly")
    func killedWhileSaving() async throws {
        let folder = try Folder()
        // About three minutes of real speech: two_cities.wav four times.
        let long = folder.url.appendingPathComponent("long.wav")
        let sox = try CLI.run(tool: "/usr/bin/sox", Array(repeating: CLI.audio("two_cities.wav"), count: 4) + [long.path])
        try #require(sox.status == 0, "\(sox.stderr)")
        let history = folder.history

        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["transcribe", long.path, "-m", "tiny.en", "--beam-size", "1", "-q", "--save", "--history", history]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let url = URL(fileURLWithPath: history)
        var seen = 0
        _ = await Poll.until(timeout: 180, every: .milliseconds(50)) {
            if FileManager.default.fileExists(atPath: url.path) {
                seen = (try? TranscriptStore(url: url).sessions().first?.resultCount) ?? 0
            }
            return seen >= 3 || !process.isRunning
        }
        kill(process.processIdentifier, SIGKILL)
        let status = process.waitForExit()
        try #require(seen >= 3, "no segments were saved before the deadline")
        #expect(status == 128 + SIGKILL, "aural ended before it was killed")

        let store = try TranscriptStore(url: URL(fileURLWithPath: history))
        let integrity = try store.withConnection { try $0.query("PRAGMA integrity_check").first?.text(0) }
        #expect(integrity == "ok")
        let session = try #require(try store.sessions().first)
        #expect(session.endedAt == nil)
        let transcript = try store.transcript(session.id)
        #expect(transcript.segments.count >= seen)
        #expect(transcript.text.hasPrefix(" It was the best of times"))
        #expect(zip(transcript.segments, transcript.segments.dropFirst()).allSatisfy { $0.end <= $1.start + 0.001 })
        #expect(try store.search("worst").isEmpty == false)

        let list = try CLI.run(["history", "list", "--history", history])
        #expect(list.stdout.contains("long.wav (unfinished)"))
    }

    @Test("usage errors: an ID that is not a number, a session that does not exist, an unknown subcommand")
    func usageErrors() throws {
        let folder = try Folder()
        let empty = try CLI.run(["history", "list", "--history", folder.history])
        #expect(empty.status == 0)
        #expect(empty.stdout == "No sessions yet in \(folder.history).\n")
        #expect(!FileManager.default.fileExists(atPath: folder.history))

        let notNumber = try CLI.run(["history", "show", "abc", "--history", folder.history])
        #expect(notNumber.status == 64)
        #expect(notNumber.stderr.contains("ID must be a session number, got 'abc'"))

        let missing = try CLI.run(["history", "export", "7", "--history", folder.history])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("There is no session 7 in the transcript history."))
        #expect(missing.stderr.contains("hint: Run `aural history list`"))

        let unknown = try CLI.run(["history", "serch", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("did you mean 'search'?"))

        let help = try CLI.run(["history", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("search    Find the stored results"))
    }

    @Test("--history implies --save, AURALKIT_HISTORY names the database, delete removes a session from search")
    func deletes() throws {
        let folder = try Folder()
        let saved = try CLI.run(Self.transcribe + ["--history", folder.history])  // --history implies --save
        #expect(saved.status == 0, "\(saved.stderr)")
        let viaEnvironment = try CLI.run(["history", "search", "better"], environment: ["AURALKIT_HISTORY": folder.history])
        #expect(viaEnvironment.stdout == "1  0:08  beckett.wav  Fail [better].\n")
        let deleted = try CLI.run(["history", "delete", "1", "--history", folder.history])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "Deleted session 1.\n")
        #expect(try CLI.run(["history", "search", "better", "--history", folder.history]).stdout == "No matches.\n")
        #expect(try CLI.run(["history", "delete", "1", "--history", folder.history]).status == 1)
    }
}
