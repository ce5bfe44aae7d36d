import AuralKit
import Foundation

/// `aural models list|install|remove|path`: see and manage the installed Whisper models.
enum ModelsCommand {
    static let abstract = "List, install and remove Whisper models"

    static let endpointOption = OptionSpec(
        "endpoint", .string("URL"), help: "Hugging Face-compatible server to download from", defaultValue: "$HF_ENDPOINT or https://huggingface.co")

    static let list = CommandSpec(
        name: "aural models list", abstract: "Show the installed models and those that can be installed, with their sizes", options: [])
    static let install = CommandSpec(
        name: "aural models install", abstract: "Download and install a model (resumes an interrupted download)",
        options: [endpointOption, OptionSpec("quiet", short: "q", .flag, help: "No progress")],
        positionals: [PositionalSpec("NAME", help: "A model name from 'aural models list' (tiny.en, base, small, …)")])
    static let remove = CommandSpec(
        name: "aural models remove", abstract: "Delete an installed model", options: [],
        positionals: [PositionalSpec("NAME", help: "An installed model")])
    static let path = CommandSpec(
        name: "aural models path", abstract: "Print the model folder, or the folder of one installed model", options: [],
        positionals: [PositionalSpec("NAME", help: "An installed model", isOptional: true)])

    static let subcommands: [(spec: CommandSpec, run: @Sendable (ParsedArguments) async -> Int32)] = [
        (list, runList), (install, runInstall), (remove, runRemove), (path, runPath),
    ]

    static var usage: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: aural models <subcommand> [<options>]", "", "SUBCOMMANDS:"]
        for (spec, _) in subcommands {
            let name = String(spec.name.split(separator: " ").last!)
            lines.append("  \(name.padding(toLength: 10, withPad: " ", startingAt: 0))\(spec.abstract)")
        }
        lines += [
            "", "Models live in $AURALKIT_MODELS_DIR, else $XDG_CACHE_HOME/auralkit/models. Downloads honour HF_ENDPOINT and HF_TOKEN.",
            "Run 'aural models <subcommand> --help' for its options.",
        ]
        return lines.joined(separator: "\n")
    }

    static func run(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            print(usage)
            return 0
        }
        guard let subcommand = subcommands.first(where: { $0.spec.name == "aural models \(first)" }) else {
            let names = subcommands.map { String($0.spec.name.split(separator: " ").last!) }
            var message = "error: unknown subcommand '\(first)'"
            if let match = closestMatch(to: first, among: names) { message += "; did you mean '\(match)'?" }
            printError(message + "\nRun 'aural models --help' for the subcommands.")
            return UsageError.exitCode
        }
        return await subcommand.spec.run(Array(arguments.dropFirst()), subcommand.run)
    }

    // MARK: - Subcommands

    @Sendable static func runList(_ parsed: ParsedArguments) async -> Int32 {
        let manager = ModelManager.shared
        let installed = await manager.installedModels()
        let catalog = manager.catalog
        var defaults: [String: [String]] = [:]
        for use in ModelUse.allCases {
            if let name = catalog.defaults[use] { defaults[name, default: []].append(describe(use)) }
        }
        print("Models in \(manager.cacheDirectory.path)\n")
        var rows: [[String]] = [["NAME", "SIZE", "LANGUAGES", "PARAMETERS", "STATUS"]]
        for model in catalog.models {
            let found = installed.first { $0.name == model.name }
            var status: [String] = []
            if let found { status.append(found.isComplete ? "installed" : "incomplete (\(found.problems.joined(separator: "; ")))") }
            if let uses = defaults[model.name] { status.append("default for " + uses.joined(separator: " and ")) }
            rows.append([
                model.name, model.downloadSize.map { bytes(Double($0)) } ?? "?", model.isEnglishOnly ? "English" : "\(model.languages.count)",
                "\(model.parameterMillions)M", status.joined(separator: ", "),
            ])
        }
        for other in installed where catalog.model(named: other.name) == nil {
            rows.append([other.name, bytes(Double(other.size)), "?", "?", other.isComplete ? "installed (not in the catalog)" : "incomplete"])
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let padded = (0..<4).map { row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined()
            print((padded + row[4]).trimmingCharacters(in: .whitespaces))
        }
        let machine = await manager.deviceCapabilities()
        print("\nFor this machine (\(machine.processorCount) core\(machine.processorCount == 1 ? "" : "s"), \(bytes(Double(machine.physicalMemory)).replacingOccurrences(of: " ", with: "\u{A0}")) memory): "
            + "\(machine.recommendedModel) for files and other languages, \(machine.recommendedEnglishModel) for live English.")
        return 0
    }

    @Sendable static func runInstall(_ parsed: ParsedArguments) async -> Int32 {
        let name = parsed.positional("NAME")!
        var endpoint: URL?
        if let text = parsed.string("endpoint") {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                printError(UsageError(message: "--endpoint needs an http or https URL, got '\(text)'", command: install.name).description)
                return UsageError.exitCode
            }
            endpoint = url
        }
        let manager = endpoint.map { ModelManager(endpoint: $0) } ?? .shared
        do {
            guard let request = try await manager.installationRequest(for: name) else {
                print("\(name) is already installed in \(try manager.folder(for: name).path)")
                return 0
            }
            let progress = request.progress
            let reporter = Task { await drawProgress(progress, name: name, quiet: parsed.flag("quiet")) }
            do {
                try await request.downloadAndInstall()
            } catch {
                reporter.cancel()
                await reporter.value  // clears the bar before the error is printed
                throw error
            }
            reporter.cancel()
            await reporter.value
            print("Installed \(name) in \(try manager.folder(for: name).path)")
            return 0
        } catch {
            report(error, context: name)
            return 1
        }
    }

    @Sendable static func runRemove(_ parsed: ParsedArguments) async -> Int32 {
        let name = parsed.positional("NAME")!
        do {
            try await ModelManager.shared.remove(name)
            print("Removed \(name)")
            return 0
        } catch {
            report(error, context: name)
            return 1
        }
    }

    @Sendable static func runPath(_ parsed: ParsedArguments) async -> Int32 {
        let manager = ModelManager.shared
        guard let name = parsed.positional("NAME") else {
            print(manager.cacheDirectory.path)
            return 0
        }
        do {
            print(try manager.folder(for: name).path)
            return 0
        } catch {
            report(error, context: name)
            return 1
        }
    }

    // MARK: - Output

    /// Draws `progress` until the task is cancelled: a bar on a terminal, else a line at every tenth.
    static func drawProgress(_ progress: Progress, name: String, quiet: Bool) async {
        let total = Double(progress.totalUnitCount)
        var bar = ProgressBar(label: name, total: total, enabled: !quiet && isatty(STDERR_FILENO) == 1, format: bytes)
        var lastTenth = -1
        while true {
            let fraction = progress.fractionCompleted
            if bar.isEnabled {
                bar.update(fraction)
            } else if !quiet, Int(fraction * 10) > lastTenth {
                lastTenth = Int(fraction * 10)
                let done = Double(progress.completedUnitCount)
                printError("Downloading \(name): \(lastTenth * 10)% (\(bytes(done)) of \(bytes(total)))")
            }
            if Task.isCancelled { break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        bar.finish()
    }

    /// Bytes in decimal units, as download sizes are usually quoted: "78.1 MB", "1.53 GB".
    static func bytes(_ count: Double) -> String {
        if count >= 1e9 { return String(format: "%.2f GB", count / 1e9) }
        if count >= 1e6 { return String(format: "%.1f MB", count / 1e6) }
        if count >= 1e3 { return String(format: "%.1f kB", count / 1e3) }
        return "\(Int(count)) B"
    }

    static func describe(_ use: ModelUse) -> String {
        switch use {
        case .liveEnglish: "live English"
        case .files: "files"
        case .otherLanguages: "other languages"
        }
    }
}
