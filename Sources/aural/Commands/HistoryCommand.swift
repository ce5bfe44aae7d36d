import AuralHistory
import AuralKit
import Foundation

/// `aural history list|show|search|export|delete`: the transcripts `aural transcribe --save` and `aural listen`
/// stored, through `TranscriptStore`.
enum HistoryCommand {
    static let abstract = "List, search, export and delete stored transcripts"

    /// `--history PATH`, shared with the commands that write history.
    static let historyOption = OptionSpec(
        "history", .string("PATH"), help: "The history database",
        defaultValue: "$AURALKIT_HISTORY, else $XDG_DATA_HOME/auralkit/history.sqlite3")

    static let idPositional = PositionalSpec("ID", help: "A session's number, as 'aural history list' shows it")

    static let list = CommandSpec(
        name: "aural history list", abstract: "Show the stored sessions, newest first, with duration and first words",
        options: [historyOption, OptionSpec("limit", short: "n", .int("N"), help: "Show at most N sessions", defaultValue: "20")])
    static let show = CommandSpec(
        name: "aural history show", abstract: "Print a session's details and its transcript with times",
        options: [historyOption], positionals: [idPositional])
    static let search = CommandSpec(
        name: "aural history search", abstract: "Find the stored results that contain every given word, best match first",
        options: [historyOption, OptionSpec("limit", short: "n", .int("N"), help: "Show at most N matches", defaultValue: "20")],
        positionals: [
            PositionalSpec(
                "TEXT", help: "Words to find (stems match: 'city' finds 'cities'; 'budg*' is a prefix)", isRepeatable: true)
        ])
    static let export = CommandSpec(
        name: "aural history export", abstract: "Write a session as text, subtitles or JSON, as 'aural transcribe' writes them",
        options: [
            historyOption,
            OptionSpec(
                "format", short: "f", .choice(TranscriptFormat.allCases.map(\.rawValue)), help: "Output format",
                defaultValue: "txt"),
            OptionSpec("output", short: "o", .string("FILE"), help: "Write to FILE instead of standard output"),
        ],
        positionals: [idPositional])
    static let delete = CommandSpec(
        name: "aural history delete", abstract: "Delete a session and its transcript", options: [historyOption],
        positionals: [idPositional])

    static let subcommands: [(spec: CommandSpec, run: @Sendable (ParsedArguments) async -> Int32)] = [
        (list, runList), (show, runShow), (search, runSearch), (export, runExport), (delete, runDelete),
    ]

    static var usage: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: aural history <subcommand> [<options>]", "", "SUBCOMMANDS:"]
        for (spec, _) in subcommands {
            let name = String(spec.name.split(separator: " ").last!)
            lines.append("  \(name.padding(toLength: 10, withPad: " ", startingAt: 0))\(spec.abstract)")
        }
        lines += [
            "", "History lives in $AURALKIT_HISTORY, else $XDG_DATA_HOME/auralkit/history.sqlite3 (~/.local/share/...).",
            "'aural transcribe --save' and 'aural listen' add to it. Run 'aural history <subcommand> --help' for its options.",
        ]
        return lines.joined(separator: "\n")
    }

    static func run(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            print(usage)
            return 0
        }
        guard let subcommand = subcommands.first(where: { $0.spec.name == "aural history \(first)" }) else {
            let names = subcommands.map { String($0.spec.name.split(separator: " ").last!) }
            var message = "error: unknown subcommand '\(first)'"
            if let match = closestMatch(to: first, among: names) { message += "; did you mean '\(match)'?" }
            printError(message + "\nRun 'aural history --help' for the subcommands.")
            return UsageError.exitCode
        }
        return await subcommand.spec.run(Array(arguments.dropFirst()), subcommand.run)
    }

    /// The database `--history` names, else the default location.
    static func url(_ parsed: ParsedArguments) -> URL {
        parsed.string("history").map { URL(fileURLWithPath: $0) } ?? TranscriptStore.defaultURL()
    }

    /// Opens the history for a subcommand that reads or changes it; nil, with nothing created, when there is no
    /// database yet. Errors are reported; `status` is then the exit status to return.
    private static func open(_ parsed: ParsedArguments) -> (store: TranscriptStore?, status: Int32) {
        let url = url(parsed)
        guard FileManager.default.fileExists(atPath: url.path) else { return (nil, 0) }
        do {
            return (try TranscriptStore(url: url), 0)
        } catch {
            report(error)
            return (nil, 1)
        }
    }

    /// Runs `body` on the session `ID` names, for the subcommands about one session: a bad ID is a usage error, a
    /// missing database or session is `sessionNotFound`, and every error is reported (exit status 1).
    private static func withSession(
        _ parsed: ParsedArguments, command: CommandSpec,
        _ body: (TranscriptStore, TranscriptStore.SessionID) throws -> Int32
    ) -> Int32 {
        guard let id = sessionID(parsed, command: command) else { return UsageError.exitCode }
        let (store, status) = open(parsed)
        do {
            guard let store else {
                if status == 0 { throw TranscriptStoreError.sessionNotFound(id) }
                return status
            }
            return try body(store, id)
        } catch {
            report(error)
            return 1
        }
    }

    /// The session number in `ID`, or a usage error.
    private static func sessionID(_ parsed: ParsedArguments, command: CommandSpec) -> TranscriptStore.SessionID? {
        let text = parsed.positional("ID")!
        guard let id = TranscriptStore.SessionID(text), id.rawValue > 0 else {
            printError(UsageError(message: "ID must be a session number, got '\(text)'", command: command.name).description)
            return nil
        }
        return id
    }

    // MARK: - Subcommands

    @Sendable static func runList(_ parsed: ParsedArguments) async -> Int32 {
        let (store, status) = open(parsed)
        guard let store else {
            if status == 0 { print("No sessions yet in \(url(parsed).path).") }
            return status
        }
        do {
            let sessions = try store.sessions(limit: max(parsed.int("limit") ?? 20, 0))
            if sessions.isEmpty {
                print("No sessions yet in \(store.url.path).")
                return 0
            }
            var rows = [["ID", "STARTED", "DURATION", "SOURCE", "TEXT"]]
            for session in sessions {
                rows.append([
                    session.id.description, dateText(session.startedAt, seconds: false), clock(session.duration),
                    shortSource(session.source) + (session.endedAt == nil ? " (unfinished)" : ""), session.preview,
                ])
            }
            printTable(rows)
            return 0
        } catch {
            report(error)
            return 1
        }
    }

    @Sendable static func runShow(_ parsed: ParsedArguments) async -> Int32 {
        withSession(parsed, command: show) { store, id in
            let transcript = try store.transcript(id)
            let session = transcript.session
            var lines = [
                "Session \(session.id)",
                "Source:    \(session.source)",
                "Started:   \(dateText(session.startedAt, seconds: true))",
                "Ended:     "
                    + (session.endedAt.map { dateText($0, seconds: true) } ?? "not recorded (the program stopped before the end)"),
                "Duration:  \(clock(session.duration))",
            ]
            if let locale = session.locale { lines.append("Language:  \(locale.identifier)") }
            if let model = session.model { lines.append("Model:     \(model)") }
            lines.append("")
            for segment in transcript.segments {
                lines.append("[\(clock(segment.start, fraction: true)) → \(clock(segment.end, fraction: true))] "
                    + segment.text.trimmingCharacters(in: .whitespaces))
            }
            print(lines.joined(separator: "\n"))
            return 0
        }
    }

    @Sendable static func runSearch(_ parsed: ParsedArguments) async -> Int32 {
        let text = parsed.positionals("TEXT").joined(separator: " ")
        let (store, status) = open(parsed)
        guard let store else {
            if status == 0 { print("No matches (no history yet in \(url(parsed).path)).") }
            return status
        }
        do {
            let hits = try store.search(text, limit: max(parsed.int("limit") ?? 20, 0))
            guard !hits.isEmpty else {
                print("No matches.")
                return 0
            }
            let marks = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
                ? ("\u{1B}[1;33m", "\u{1B}[0m") : ("[", "]")
            var rows: [[String]] = []
            for hit in hits {
                rows.append([
                    hit.session.id.description, clock(hit.range.start.seconds), shortSource(hit.session.source),
                    highlighted(hit, open: marks.0, close: marks.1),
                ])
            }
            printTable(rows)
            return 0
        } catch {
            report(error)
            return 1
        }
    }

    @Sendable static func runExport(_ parsed: ParsedArguments) async -> Int32 {
        let format = parsed.string("format").flatMap(TranscriptFormat.init(rawValue:)) ?? .txt
        return withSession(parsed, command: export) { store, id in
            let transcript = try store.transcript(id)
            let rendered = format.writer.render(segments: transcript.segments, info: transcript.info)
            if let output = parsed.string("output"), output != "-" {
                do {
                    try rendered.write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
                } catch {
                    report(error, context: output)
                    return 1
                }
            } else {
                // As `aural transcribe` prints it, so that both write the same bytes.
                print(rendered, terminator: rendered.hasSuffix("\n") ? "" : "\n")
            }
            return 0
        }
    }

    @Sendable static func runDelete(_ parsed: ParsedArguments) async -> Int32 {
        withSession(parsed, command: delete) { store, id in
            try store.delete(id)
            print("Deleted session \(id).")
            return 0
        }
    }

    // MARK: - Formatting

    /// The hit's text, stripped, with each match between `open` and `close`.
    static func highlighted(_ hit: TranscriptStore.SearchHit, open: String, close: String) -> String {
        var text = ""
        var position = hit.text.startIndex
        for match in hit.matches {
            text += hit.text[position..<match.lowerBound] + open + hit.text[match] + close
            position = match.upperBound
        }
        text += hit.text[position...]
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A file's name rather than its whole path; other sources as they are.
    static func shortSource(_ source: String) -> String {
        source.hasPrefix("/") ? URL(fileURLWithPath: source).lastPathComponent : source
    }

    /// `2026-12-01 09:30` (local time), with `:ss` when `seconds`.
    static func dateText(_ date: Date, seconds: Bool) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = seconds ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    /// `0:44`, `1:02:03`, or with `fraction` `0:44.120`.
    static func clock(_ seconds: Double, fraction: Bool = false) -> String {
        let total = max(seconds.isFinite ? seconds : 0, 0)
        let milliseconds = Int((total * 1000).rounded())
        let whole = fraction ? milliseconds / 1000 : Int(total.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        var text = hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
        if fraction { text += String(format: ".%03d", milliseconds % 1000) }
        return text
    }

    /// Prints rows in columns two spaces apart; the last column is not padded.
    static func printTable(_ rows: [[String]]) {
        guard let columns = rows.first?.count else { return }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == columns - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }
}
