import Foundation
import TestSupport

/// Runs the built `aural` executable, which SwiftPM builds next to the test bundle.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The test runner may be inside an .xctest bundle on some platforms.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "Contents" || directory.lastPathComponent == "MacOS" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("aural")
    }

    /// The path of a recording in `fixtures/audio` ("beckett.wav"), as a command-line argument.
    static func audio(_ name: String) -> String {
        Fixtures.audio(name).path
    }

    /// The path of an encoded file `scripts/setup` made in `fixtures/media` ("beckett.mp3").
    static func media(_ name: String) -> String {
        Fixtures.media(name).path
    }

    /// Runs `aural arguments…` to completion and returns what it printed.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(tool: executable.path, arguments, environment: environment)
    }

    /// Runs another program (such as `script`, to give `aural` a terminal) to completion.
    static func run(tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.runWithDefaultSignals()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        let status = process.waitForExit()
        return Result(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    static func snapshot(_ name: String) throws -> String {
        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Tests/AuralCLITests/Snapshots/\(name)"), encoding: .utf8)
    }
}
