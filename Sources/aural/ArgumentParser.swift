// A small, table-driven command-line parser; see `CommandSpec`.

/// What an option takes after its name.
enum OptionKind: Equatable, Sendable {
    /// Nothing: the option is on or off.
    case flag
    /// Any text, shown in help as `valueName`.
    case string(_ valueName: String)
    /// A whole number, shown in help as `valueName`.
    case int(_ valueName: String)
    /// A finite decimal number, shown in help as `valueName`.
    case double(_ valueName: String)
    /// One of a fixed list of words.
    case choice(_ choices: [String])

    /// How the value is shown in help, or nil for a flag.
    var valueName: String? {
        switch self {
        case .flag: return nil
        case .string(let name), .int(let name), .double(let name): return name
        case .choice(let choices): return choices.joined(separator: "|")
        }
    }
}

/// One row of a command's option table.
struct OptionSpec: Sendable {
    /// The long name without dashes, as in `--beam-size`.
    let long: String
    /// The one-letter name without its dash, as in `-m`.
    let short: Character?
    let kind: OptionKind
    let help: String
    /// The default as shown in help; it is not applied by the parser.
    let defaultValue: String?
    /// Whether the option may be given more than once; each value is kept, in order.
    let isRepeatable: Bool

    init(
        _ long: String, short: Character? = nil, _ kind: OptionKind, help: String, defaultValue: String? = nil,
        isRepeatable: Bool = false
    ) {
        self.long = long
        self.short = short
        self.kind = kind
        self.help = help
        self.defaultValue = defaultValue
        self.isRepeatable = isRepeatable
    }
}

/// One positional argument; an optional or repeatable positional must come last.
struct PositionalSpec: Sendable {
    let name: String
    let help: String
    let isOptional: Bool
    let isRepeatable: Bool

    init(_ name: String, help: String, isOptional: Bool = false, isRepeatable: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeatable = isRepeatable
    }
}

/// A parsed option value, already converted to its kind's type.
enum ArgumentValue: Equatable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
}

/// A command line the user got wrong, with a message saying what and how to see the usage.
struct UsageError: Error, Equatable, CustomStringConvertible {
    /// What was wrong, such as "unknown option --foo; did you mean --format?".
    let message: String
    /// The command's name, for the hint to run it with `--help`.
    let command: String

    /// The exit status for a usage error (EX_USAGE in sysexits.h).
    static let exitCode: Int32 = 64

    /// The message and a hint, ready for standard error.
    var description: String { "error: \(message)\nRun '\(command) --help' for usage." }
}

/// What the command line asked for.
enum ParseOutcome: Sendable {
    /// `--help` was given; the text is the command's help.
    case help(String)
    /// The options and positionals, checked against the table.
    case arguments(ParsedArguments)
}

/// Parsed values, read by long option name or positional name.
///
/// Asking for a name the table does not have, or reading an option as the wrong type, is a programming
/// error and traps.
struct ParsedArguments: Sendable {
    fileprivate let spec: CommandSpec
    fileprivate var values: [String: [ArgumentValue]] = [:]
    fileprivate var flagsGiven: Set<String> = []
    fileprivate var positionalValues: [String: [String]] = [:]

    /// Whether a flag was given.
    func flag(_ long: String) -> Bool {
        precondition(option(long).kind == .flag, "--\(long) is not a flag")
        return flagsGiven.contains(long)
    }

    /// The value of a string or choice option, or nil when it was not given.
    func string(_ long: String) -> String? { strings(long).last }

    /// Every value of a repeatable string or choice option, in order.
    func strings(_ long: String) -> [String] {
        given(long).map { value in
            guard case .string(let text) = value else { preconditionFailure("--\(long) is not a string option") }
            return text
        }
    }

    /// The value of an int option, or nil when it was not given.
    func int(_ long: String) -> Int? {
        given(long).last.map { value in
            guard case .int(let number) = value else { preconditionFailure("--\(long) is not an int option") }
            return number
        }
    }

    /// The value of a double option, or nil when it was not given.
    func double(_ long: String) -> Double? { doubles(long).last }

    /// Every value of a repeatable double option, in order.
    func doubles(_ long: String) -> [Double] {
        given(long).map { value in
            guard case .double(let number) = value else { preconditionFailure("--\(long) is not a double option") }
            return number
        }
    }

    /// The value of a single positional, or nil when an optional one was not given.
    func positional(_ name: String) -> String? { positionals(name).first }

    /// Every value of a positional (one for a plain positional, any number for a repeatable one).
    func positionals(_ name: String) -> [String] {
        precondition(spec.positionals.contains { $0.name == name }, "No positional named \(name)")
        return positionalValues[name] ?? []
    }

    private func option(_ long: String) -> OptionSpec {
        guard let option = spec.options.first(where: { $0.long == long }) else { preconditionFailure("No option --\(long)") }
        return option
    }

    private func given(_ long: String) -> [ArgumentValue] {
        _ = option(long)
        return values[long] ?? []
    }
}

/// A command's table: its name, one-line description, options and positionals. The table drives both
/// parsing and `--help`.
///
/// ```swift
/// let transcribe = CommandSpec(
///     name: "aural transcribe",
///     abstract: "Transcribe audio files.",
///     options: [
///         OptionSpec("model", short: "m", .string("NAME"), help: "Model name or folder.", defaultValue: "tiny"),
///         OptionSpec("format", .choice(["txt", "srt", "vtt", "json"]), help: "Output format.", defaultValue: "txt"),
///         OptionSpec("beam-size", .int("N"), help: "Beams in beam search."),
///         OptionSpec("verbose", short: "v", .flag, help: "Print progress."),
///     ],
///     positionals: [PositionalSpec("FILE", help: "Audio files.", isRepeatable: true)]
/// )
/// switch try transcribe.parse(Array(CommandLine.arguments.dropFirst(2))) {
/// case .help(let text): print(text)
/// case .arguments(let arguments): run(files: arguments.positionals("FILE"), beamSize: arguments.int("beam-size"))
/// }
/// ```
///
/// Accepted forms: `--name value`, `--name=value`, `-n value`, flags as `--name` or `-n`, and `--` to end
/// options. A value may start with one dash (`--offset -1`, `--output -`); write `--name=--text` for a value
/// that starts with two. `--help` or `-h` anywhere before `--` asks for help. Parsing never fills in
/// defaults: an option not given reads as `nil` and the caller applies the library's own default, so
/// defaults live in one place; `defaultValue` is only the text shown in help.
struct CommandSpec: Sendable {
    /// The name as typed, such as "aural transcribe".
    let name: String
    let abstract: String
    let options: [OptionSpec]
    let positionals: [PositionalSpec]

    private static let helpOption = OptionSpec("help", short: "h", .flag, help: "Show this help.")

    init(name: String, abstract: String, options: [OptionSpec], positionals: [PositionalSpec] = []) {
        precondition(!options.contains { $0.long == "help" || $0.short == "h" }, "--help and -h are built in")
        precondition(
            positionals.dropLast().allSatisfy { !$0.isRepeatable }, "Only the last positional can be repeatable")
        self.name = name
        self.abstract = abstract
        self.options = options
        self.positionals = positionals
    }

    /// Parses `arguments` and runs `body` with them; answers `--help` (status 0) and usage errors (status 64)
    /// itself, so every command treats them alike.
    func run(_ arguments: [String], _ body: (ParsedArguments) async -> Int32) async -> Int32 {
        do {
            switch try parse(arguments) {
            case .help(let text):
                print(text)
                return 0
            case .arguments(let parsed):
                return await body(parsed)
            }
        } catch {
            printError(error.description)
            return UsageError.exitCode
        }
    }

    /// Parses the arguments after the command name.
    func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        if arguments.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .help(helpText())
        }
        var parsed = ParsedArguments(spec: self)
        var loose: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                loose += arguments[index...]
                break
            }
            guard argument.hasPrefix("-"), argument != "-", !isNumber(argument) else {
                loose.append(argument)
                continue
            }
            let (name, inlineValue) = split(argument)
            let option = try find(name)
            let display = "--\(option.long)"
            let alreadyGiven = parsed.values[option.long] != nil || parsed.flagsGiven.contains(option.long)
            if alreadyGiven && !option.isRepeatable {
                throw usage("\(display) was given more than once")
            }
            guard let valueName = option.kind.valueName else {
                if inlineValue != nil { throw usage("\(display) does not take a value") }
                parsed.flagsGiven.insert(option.long)
                continue
            }
            var text = inlineValue
            if text == nil, index < arguments.count, !arguments[index].hasPrefix("--") {
                text = arguments[index]
                index += 1
            }
            guard let text else { throw usage("\(display) needs a value (\(valueName))") }
            parsed.values[option.long, default: []].append(try convert(text, for: option))
        }
        try assign(loose, to: &parsed)
        return .arguments(parsed)
    }

    /// The help text: overview, usage line, positionals and options with their defaults.
    func helpText() -> String {
        let positionalRows = positionals.map { (label: $0.name, help: $0.help) }
        let optionRows = (options + [Self.helpOption]).map { option -> (label: String, help: String) in
            var label = option.short.map { "-\($0), " } ?? ""
            label += "--\(option.long)" + (option.kind.valueName.map { " \($0)" } ?? "")
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if option.isRepeatable { help += " (can be repeated)" }
            return (label, help)
        }
        // One help column for both tables; a label too wide for it puts its help on the next line.
        let column = min((positionalRows + optionRows).map(\.label.count).max() ?? 0, 24) + 4
        func table(_ rows: [(label: String, help: String)]) -> [String] {
            rows.flatMap { row -> [String] in
                let label = "  " + row.label
                let gap = column - label.count
                if gap < 2 { return [label, String(repeating: " ", count: column) + row.help] }
                return [label + String(repeating: " ", count: gap) + row.help]
            }
        }
        let words = positionals.map { positional -> String in
            let word = positional.name + (positional.isRepeatable ? "..." : "")
            return positional.isOptional ? "[\(word)]" : word
        }
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: " + ([name, "[<options>]"] + words).joined(separator: " ")]
        if !positionalRows.isEmpty { lines += ["", "ARGUMENTS:"] + table(positionalRows) }
        lines += ["", "OPTIONS:"] + table(optionRows)
        return lines.joined(separator: "\n") + "\n"
    }

    private func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private func find(_ name: String) throws(UsageError) -> OptionSpec {
        let all = options + [Self.helpOption]
        if name.hasPrefix("--"), let option = all.first(where: { "--\($0.long)" == name }) { return option }
        if !name.hasPrefix("--"), name.count == 2, let option = all.first(where: { $0.short.map { "-\($0)" } == name }) {
            return option
        }
        let hint = closestMatch(to: name, among: all.map { "--\($0.long)" }).map { "; did you mean \($0)?" } ?? ""
        throw usage("unknown option \(name)\(hint)")
    }

    private func convert(_ text: String, for option: OptionSpec) throws(UsageError) -> ArgumentValue {
        let display = "--\(option.long)"
        switch option.kind {
        case .flag, .string:
            return .string(text)
        case .int:
            guard let number = Int(text) else { throw usage("\(display) needs a whole number, got '\(text)'") }
            return .int(number)
        case .double:
            guard let number = Double(text), number.isFinite else { throw usage("\(display) needs a number, got '\(text)'") }
            return .double(number)
        case .choice(let choices):
            guard choices.contains(text) else {
                let hint = closestMatch(to: text, among: choices).map { "; did you mean '\($0)'?" } ?? ""
                throw usage("\(display) must be one of \(choices.joined(separator: ", ")), got '\(text)'\(hint)")
            }
            return .string(text)
        }
    }

    private func assign(_ loose: [String], to parsed: inout ParsedArguments) throws(UsageError) {
        var remaining = loose[...]
        for positional in positionals {
            if positional.isRepeatable {
                parsed.positionalValues[positional.name] = Array(remaining)
                remaining = []
            } else if let first = remaining.popFirst() {
                parsed.positionalValues[positional.name] = [first]
            }
            if parsed.positionalValues[positional.name, default: []].isEmpty && !positional.isOptional {
                throw usage("missing \(positional.name)")
            }
        }
        if let extra = remaining.first { throw usage("unexpected argument '\(extra)'") }
    }

    private func isNumber(_ argument: String) -> Bool { Double(argument) != nil }

    private func usage(_ message: String) -> UsageError { UsageError(message: message, command: name) }
}

/// The candidate `word` was most likely meant to be: one it is the start of, or else the nearest within two
/// edits (insertions, deletions or substitutions). Leading dashes are ignored when comparing.
func closestMatch(to word: String, among candidates: [String]) -> String? {
    func bare(_ text: String) -> String { String(text.drop { $0 == "-" }) }
    let typed = bare(word)
    guard !typed.isEmpty else { return nil }
    if let completion = candidates.first(where: { bare($0).hasPrefix(typed) }) { return completion }
    let nearest = candidates.min { editDistance(typed, bare($0)) < editDistance(typed, bare($1)) }
    return nearest.flatMap { editDistance(typed, bare($0)) <= 2 ? $0 : nil }
}

/// Levenshtein distance: the fewest single-character insertions, deletions or substitutions from a to b.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        previous = current
    }
    return previous[b.count]
}
