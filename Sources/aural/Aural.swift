import AuralKit
import Foundation

/// `aural`: transcribe audio files with AuralKit's on-device Whisper engine.
@main
struct Aural {
    static let version = "0.1.0"

    static let commands: [(name: String, abstract: String, run: @Sendable ([String]) async -> Int32)] = [
        ("transcribe", TranscribeCommand.spec.abstract, TranscribeCommand.run),
        ("models", ModelsCommand.abstract, ModelsCommand.run),
        ("devices", DevicesCommand.spec.abstract, DevicesCommand.run),
    ]

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        exit(await dispatch(arguments))
    }

    static func dispatch(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            print(usage)
            return 0
        }
        if first == "--version" {
            print("aural \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            var message = "error: unknown command '\(first)'"
            if let match = closestMatch(to: first, among: commands.map(\.name)) { message += "; did you mean '\(match)'?" }
            printError(message + "\nRun 'aural --help' for the commands.")
            return UsageError.exitCode
        }
        return await command.run(Array(arguments.dropFirst()))
    }

    static var usage: String {
        var lines = ["aural \(version): on-device speech to text with Whisper", "", "Usage: aural <command> [options]", "", "Commands:"]
        for command in commands { lines.append("  \(command.name.padding(toLength: 12, withPad: " ", startingAt: 0))\(command.abstract)") }
        lines += ["", "Run 'aural <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }
}

/// Writes a line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Prints an error with its reason and recovery suggestion, as AuralKit's errors carry them.
func report(_ error: Error, context: String? = nil) {
    var lines: [String] = []
    let prefix = context.map { "\($0): " } ?? ""
    if let localized = error as? LocalizedError {
        lines.append("error: \(prefix)\(localized.errorDescription ?? "\(error)")")
        if let reason = localized.failureReason { lines.append("  \(reason)") }
        if let suggestion = localized.recoverySuggestion { lines.append("hint: \(suggestion)") }
    } else {
        lines.append("error: \(prefix)\(error.localizedDescription)")
    }
    printError(lines.joined(separator: "\n"))
}
