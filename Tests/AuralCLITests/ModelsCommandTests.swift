import Foundation
import TestSupport
import Testing

extension HubServer {
    /// `endpoint` as a command-line argument.
    var endpointArgument: String { endpoint.absoluteString }
}

@Suite("aural models", .heavyWork, .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct ModelsCommandTests {
    static let tinyEnglishSize: Int64 = 2_317 + 75_537_502 + 2_128_466 + 422_309

    static func temporaryCache() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aural-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("the machine's cores are those the process may run on: one under taskset -c 0",
          .enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1))
    func coresFollowTheAffinityMask() throws {
        let pinned = try CLI.run(tool: "/usr/bin/taskset", ["-c", "0", CLI.executable.path, "models", "list"])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        #expect(pinned.stdout.contains("For this machine (1 core,"), "\(pinned.stdout)")
        let free = try CLI.run(["models", "list"])
        #expect(free.stdout.contains("For this machine (\(ProcessInfo.processInfo.activeProcessorCount) cores"), "\(free.stdout)")
    }

    @Test("install shows a progress bar on a terminal, then transcribe --model uses the model without the network")
    func installThenTranscribe() async throws {
        let cache = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hub = try await HubServer.start(rate: 30_000_000)
        // `script` gives the command a terminal, as a user at a shell has.
        let command = "\(CLI.executable.path) models install tiny.en --endpoint \(hub.endpointArgument)"
        let result = try CLI.run(tool: "/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["AURALKIT_MODELS_DIR": cache.path])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("tiny.en ███"), "a bar is drawn")
        #expect(result.stdout.contains("█ 100% 78.1 MB/78.1 MB"))
        #expect(result.stdout.contains("Installed tiny.en in \(cache.path)/tiny.en"))
        let requests = try await hub.stats().requests.count

        let transcript = try CLI.run(
            ["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--beam-size", "1"], environment: ["AURALKIT_MODELS_DIR": cache.path])
        #expect(transcript.status == 0, "\(transcript.stderr)")
        #expect(transcript.stdout == "Ever tried, ever failed.\nNo matter, try again.\nFail again.\nFail better.\n")
        #expect(try await hub.stats().requests.count == requests, "transcribing made no request")
    }

    @Test("without a terminal install prints progress lines (endpoint from HF_ENDPOINT); list, path and remove manage the cache")
    func manage() async throws {
        let cache = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hub = try await HubServer.start()
        let environment = ["AURALKIT_MODELS_DIR": cache.path]
        let install = try CLI.run(["models", "install", "tiny.en"], environment: environment.merging(["HF_ENDPOINT": hub.endpointArgument]) { $1 })
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stderr.contains("Downloading tiny.en: 100% (78.1 MB of 78.1 MB)"))
        #expect(!install.stderr.contains("█"))

        let again = try CLI.run(["models", "install", "tiny.en", "--endpoint", "http://127.0.0.1:9"], environment: environment)
        #expect(again.status == 0)
        #expect(again.stdout == "tiny.en is already installed in \(cache.path)/tiny.en\n")

        let list = try CLI.run(["models", "list"], environment: environment)
        #expect(list.status == 0)
        let line = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix("tiny.en ") })
        #expect(line.contains("78.1 MB"))
        #expect(line.contains("English"))
        #expect(line.contains("installed, default for live English"))
        #expect(list.stdout.contains("large-v3-turbo"))

        #expect(try CLI.run(["models", "path"], environment: environment).stdout == cache.path + "\n")
        #expect(try CLI.run(["models", "path", "tiny.en"], environment: environment).stdout == cache.path + "/tiny.en\n")

        let remove = try CLI.run(["models", "remove", "tiny.en"], environment: environment)
        #expect(remove.status == 0)
        #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent("tiny.en").path))
        let missing = try CLI.run(["models", "path", "tiny.en"], environment: environment)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("aural models install tiny.en"))
    }

    @Test("a process killed during an install leaves only staged files, and the next install resumes and completes")
    func killedInstall() async throws {
        let cache = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hub = try await HubServer.start(rate: 4_000_000)
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["models", "install", "tiny.en", "--endpoint", hub.endpointArgument, "--quiet"]
        process.environment = ProcessInfo.processInfo.environment.merging(["AURALKIT_MODELS_DIR": cache.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let partial = cache.appendingPathComponent(".staging/tiny.en/model.bin.partial")
        // Generous: starting takes a while on a loaded machine.
        let staging = await Poll.until(timeout: 300, every: .milliseconds(2)) {
            let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value ?? 0
            return size >= 4_000_000 || !process.isRunning
        }
        kill(process.processIdentifier, SIGKILL)
        #expect(staging && process.waitForExit(grace: 10) == 128 + SIGKILL, "aural models install was killed mid-download")
        let staged = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber).int64Value
        let folders = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasPrefix(".") }
        #expect(folders.isEmpty, "no half model in the cache")

        let resumed = try CLI.run(["models", "install", "tiny.en", "--endpoint", hub.endpointArgument, "--quiet"], environment: ["AURALKIT_MODELS_DIR": cache.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("tiny.en/model.bin").path))
        let stats = try await hub.stats()
        let ranges = stats.requests(for: "model.bin").compactMap(\.range)
        #expect(ranges.contains { $0.hasPrefix("bytes=") && (Int64($0.dropFirst(6).dropLast()) ?? 0) >= staged })
        #expect(stats.bytesSent < Self.tinyEnglishSize + 8_000_000, "the staged bytes were not downloaded again")
        let transcript = try CLI.run(
            ["transcribe", CLI.audio("beckett.wav"), "-m", "tiny.en", "--beam-size", "1"], environment: ["AURALKIT_MODELS_DIR": cache.path])
        #expect(transcript.stdout.hasPrefix("Ever tried, ever failed."))
    }

    @Test("two processes installing the same model take turns: one download, both succeed")
    func concurrentProcesses() async throws {
        let cache = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache) }
        let hub = try await HubServer.start(rate: 40_000_000)
        let processes = (0..<2).map { _ in
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = ["models", "install", "tiny.en", "--endpoint", hub.endpointArgument, "--quiet"]
            process.environment = ProcessInfo.processInfo.environment.merging(["AURALKIT_MODELS_DIR": cache.path]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.runWithDefaultSignals() }
        #expect(processes.map { $0.waitForExit(grace: 600) } == [0, 0])
        #expect(try await hub.stats().bytesSent == Self.tinyEnglishSize)
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("tiny.en/model.bin").path))
    }

    @Test("usage errors and unknown models give clear messages")
    func errors() throws {
        let unknown = try CLI.run(["models", "install", "huge"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("There is no model named \"huge\"."))
        #expect(unknown.stderr.contains("aural models list"))
        #expect(try CLI.run(["models", "install"]).status == 64)
        let typo = try CLI.run(["models", "lsit"])
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("did you mean 'list'?"))
        let help = try CLI.run(["models", "--help"])
        #expect(help.stdout.contains("install   Download and install a model"))
        #expect(try CLI.run(["--help"]).stdout.contains("models      List, install and remove Whisper models"))
    }
}
