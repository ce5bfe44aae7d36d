import AuralHistory
import AuralAudio
import AuralKit
import Foundation

/// `aural`: transcribe audio files, or the microphone live, with AuralKit's on-device Whisper engine.
@main
struct Aural {
    static let version = "0.1.0"

    static let commands: [(name: String, abstract: String, run: @Sendable ([String]) async -> Int32)] = [
        ("transcribe", TranscribeCommand.spec.abstract, TranscribeCommand.run),
        ("listen", ListenCommand.spec.abstract, ListenCommand.run),
        ("models", ModelsCommand.abstract, ModelsCommand.run),
        ("devices", DevicesCommand.spec.abstract, DevicesCommand.run),
        ("history", HistoryCommand.abstract, HistoryCommand.run),
        ("serve", ServeCommand.spec.abstract, ServeCommand.run),
    ]

    static func main() async {
        // Problems with a file are reported as errors; FFmpeg's own lines on standard error would only repeat them.
        AudioFileReader.quietsFFmpegLog = true
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

/// Prints an error with its reason and a hint: `aural`'s own hint for the errors it has one for (the command or flag
/// to use), else the recovery suggestion the library's error carries, which is written for apps.
/// - Parameters:
///   - severity: The line's first word: "error", or "warning" for a problem the command works around.
///   - note: A line after the reason, saying what the command does about it.
func report(_ error: Error, context: String? = nil, severity: String = "error", note: String? = nil) {
    var lines: [String] = []
    let prefix = context.map { "\($0): " } ?? ""
    if let localized = error as? LocalizedError {
        lines.append("\(severity): \(prefix)\(localized.errorDescription ?? "\(error)")")
        if let reason = localized.failureReason { lines.append("  \(reason)") }
        if let note { lines.append("  \(note)") }
        if let hint = commandLineHint(for: error) ?? localized.recoverySuggestion { lines.append("hint: \(hint)") }
    } else {
        lines.append("\(severity): \(prefix)\(error.localizedDescription)")
        if let note { lines.append("  \(note)") }
    }
    printError(lines.joined(separator: "\n"))
}

/// What to do about `error` in `aural`'s terms, for the errors whose library suggestion names an API call; nil
/// when the library's suggestion reads as well at a shell.
func commandLineHint(for error: Error) -> String? {
    switch error {
    case SpeechModelError.modelNotInstalled(let name, _) where ModelManager.isFolderPath(name):
        return "Check the path: --model takes an installed model's name (see 'aural models list') or a CTranslate2 model folder."
    case SpeechModelError.modelNotInstalled(let name, _):
        return "Install it with `aural models install \(name)`, pass a CTranslate2 model folder with --model, "
            + "or set AURALKIT_MODELS_DIR to the folder that holds your models."
    case SpeechModelError.unknownModel:
        return "Run `aural models list` for the models that can be installed."
    case SpeechModelError.modelIncomplete(let name, _) where ModelManager.isFolderPath(name):
        return "Add the missing files to the folder, or use an installed model (see 'aural models list')."
    case SpeechModelError.modelIncomplete(let name, _):
        return "Remove it with `aural models remove \(name)`, then `aural models install \(name)`."
    case AudioDeviceError.noSoundServer:
        return "Start the sound server (pulseaudio --start, or systemctl --user start pipewire-pulse), "
            + "or set PULSE_SERVER to its socket, for example unix:/run/user/1000/pulse/native."
    case TranscriptStoreError.corrupt(let path, _):
        return "Move it aside (mv '\(path)' '\(path).damaged'; sqlite3's .recover can often rescue it) and run again "
            + "to start a new history, or use --history PATH for another file."
    case TranscriptStoreError.locked:
        return "Wait for the other aural process to finish and try again, or use --history PATH for another file."
    case TranscriptStoreError.newerSchema:
        return "Use the newer aural that wrote it, or use --history PATH for another file."
    case TranscriptStoreError.notHistory:
        return "Use --history PATH (or AURALKIT_HISTORY) for a history file of its own; this one is left as it is."
    case TranscriptStoreError.cannotOpen, TranscriptStoreError.readOnly:
        return "Make the folder writable for this user, or use --history PATH (or AURALKIT_HISTORY) for a file elsewhere."
    case TranscriptStoreError.diskFull:
        return "Free some space on that disk, or use --history PATH (or AURALKIT_HISTORY) for a file on another disk."
    case TranscriptStoreError.sessionNotFound:
        return "Run `aural history list` for the stored sessions and their numbers."
    case AudioDeviceError.deviceNotFound:
        return "Run `aural devices --applications` for the names of the inputs, outputs and playing applications, "
            + "or leave the device out to use the default."
    default:
        return nil
    }
}
