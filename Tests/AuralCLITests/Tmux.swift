import Foundation
import TestSupport

/// A command running in a detached tmux window of a private tmux server: a real terminal (a pseudo-terminal with a
/// known size) whose screen a test reads with `capture-pane`, and keys it types with `send-keys`.
///
/// ```swift
/// let tmux = try Tmux(command: [CLI.executable.path, "listen"], width: 80, height: 24)
/// defer { tmux.kill() }
/// _ = try await tmux.waitForScreen(timeout: 30) { $0.contains("listening") }
/// try tmux.send("q")
/// let status = try await tmux.waitForExit(timeout: 60)
/// ```
final class Tmux {
    /// The server's socket name (`tmux -L`), unique to this window.
    let socket = "auralkit-test-\(getpid())-\(UUID().uuidString.prefix(8))"

    /// Starts `command` in a new window of `width` × `height` cells. The window stays after the command ends
    /// (`remain-on-exit`), so its last screen can be read.
    init(command: [String], width: Int, height: Int, environment: [String: String] = [:]) throws {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        var arguments = [
            "-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
        ]
        let inherited = ["PULSE_SERVER", "AURALKIT_TEST_PULSE", "AURALKIT_MODELS_DIR", "XDG_CACHE_HOME", "HOME"]
        var variables = ProcessInfo.processInfo.environment.filter { inherited.contains($0.key) }
        variables.merge(environment) { $1 }
        for (name, value) in variables.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(name)=\(value)"] }
        // The shell waits for the command and writes its status to a file, which the test reads.
        arguments.append("\(quoted); echo $? > '\(statusFile.path)'")
        try tmux(arguments)
    }

    /// Where the shell in the window writes the command's exit status.
    private let statusFile = FileManager.default.temporaryDirectory
        .appendingPathComponent("auralkit-tmux-\(UUID().uuidString).status")

    /// The screen and its scrollback: with `escapes`, the SGR sequences of text attributes are kept (dim is
    /// `ESC [ 2 m`).
    func capture(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-S", "-"] + (escapes ? ["-e"] : []))
    }

    /// Types `keys` literally (a space is a space).
    func send(_ keys: String) throws {
        try tmux(["send-keys", "-l", keys])
    }

    /// Presses a key by its tmux name ("C-c" for Ctrl-C).
    func press(_ key: String) throws {
        try tmux(["send-keys", key])
    }

    /// Polls the screen until `condition` holds; returns that screen, or nil after `timeout` seconds.
    func waitForScreen(timeout: Double, escapes: Bool = false, _ condition: (String) -> Bool) async throws -> String? {
        var screen = ""
        let shown = try await Poll.until(timeout: timeout, every: .milliseconds(200)) {
            screen = try capture(escapes: escapes)
            return condition(screen)
        }
        return shown ? screen : nil
    }

    /// The command's exit status once it has ended (128 + the signal when a signal ended it), or nil when it still
    /// runs after `timeout` seconds.
    func waitForExit(timeout: Double) async throws -> Int32? {
        var status: Int32?
        _ = await Poll.until(timeout: timeout, every: .milliseconds(200)) {
            guard let text = try? String(contentsOf: statusFile, encoding: .utf8), text.hasSuffix("\n") else { return false }
            status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            return status != nil
        }
        return status
    }

    /// Ends the server and the command with it.
    func kill() {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(at: statusFile)
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        // Without the test runner's NO_COLOR (swift test sets it), which the server would pass on to every window.
        let result = try CLI.run(tool: "/usr/bin/env", ["-u", "NO_COLOR", "tmux", "-L", socket] + arguments)
        guard result.status == 0 else {
            throw TmuxError(message: "tmux \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdout
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
