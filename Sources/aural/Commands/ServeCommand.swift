import AuralServe
import AuralWhisper
import Foundation
import Speech

/// `aural serve`: OpenAI's audio transcription API over HTTP, for programs that do not link AuralKit.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "aural serve",
        abstract: "Serve speech to text over HTTP, as OpenAI's /v1/audio/transcriptions API",
        options: [
            OptionSpec("host", .string("ADDRESS"), help: "Address to listen on (0.0.0.0 for every interface)", defaultValue: "127.0.0.1"),
            OptionSpec("port", short: "p", .int("PORT"), help: "Port to listen on (0 picks a free one)", defaultValue: "8080"),
            OptionSpec("wyoming", .int("PORT"), help: "Also serve Home Assistant's Wyoming protocol (asr) on PORT"),
            OptionSpec("model", short: "m", .string("NAME"), help: "Installed model that 'whisper-1', 'default' or no model field means", defaultValue: TranscribeCommand.defaultModel),
            OptionSpec("compute-type", .choice(ComputeType.allCases.map(\.rawValue)), help: "float32, int8 or auto (the faster on this machine)", defaultValue: "auto"),
            OptionSpec("api-key", .string("KEY"), help: "Require 'Authorization: Bearer KEY' (also $AURAL_API_KEY)"),
            OptionSpec("api-key-file", .string("FILE"), help: "Require one of the keys in FILE, one per line"),
            OptionSpec("max-concurrent", .int("N"), help: "Transcriptions that run at once; the cores are shared between them", defaultValue: "1"),
            OptionSpec("queue", .int("N"), help: "Requests that may wait for a slot; more get 429 with Retry-After", defaultValue: "16"),
            OptionSpec("max-upload-mb", .int("MB"), help: "Largest upload; larger ones get 413", defaultValue: "100"),
            OptionSpec("max-audio-minutes", .int("MIN"), help: "Longest audio accepted", defaultValue: "240"),
            OptionSpec("beam-size", .int("N"), help: "Beams at temperature 0 (1 is greedy)", defaultValue: "5"),
            OptionSpec("idle-timeout", .int("SECONDS"), help: "Close a connection or WebSocket that sends nothing for this long", defaultValue: "60"),
            OptionSpec(
                "history", .string("PATH"), help: "Where transcriptions that ask for it (history=true; the web page does) are kept",
                defaultValue: HistoryCommand.historyOption.defaultValue),
            OptionSpec("no-history", .flag, help: "Keep no history; the history routes answer 404 history_disabled"),
        ]
    )

    static func run(_ arguments: [String]) async -> Int32 {
        await spec.run(arguments, run)
    }

    static func run(_ parsed: ParsedArguments) async -> Int32 {
        let configuration: SpeechServer.Configuration
        do {
            configuration = try self.configuration(parsed)
        } catch {
            report(error)
            return UsageError.exitCode
        }
        let server = SpeechServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            report(error)
            return 1
        }
        let address = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        printError("aural serve: listening on http://\(address):\(server.port ?? configuration.port) with \(configuration.defaultModel) (Ctrl-C or SIGTERM stops)")
        if let wyoming = server.wyomingPort { printError("aural serve: Wyoming (Home Assistant) on tcp://\(address):\(wyoming)") }
        for await signal in SignalEvents.stream([SIGINT, SIGTERM]) {
            printError("aural serve: \(signal == SIGTERM ? "SIGTERM" : "SIGINT"): finishing the requests in progress")
            break
        }
        // Stopping waits for the requests in progress; it waits on a thread of its own, not on Swift's pool.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                server.stop()
                done.resume()
            }.start()
        }
        printError("aural serve: stopped")
        return 0
    }

    static func configuration(_ parsed: ParsedArguments) throws -> SpeechServer.Configuration {
        var keys = Set<String>()
        if let key = parsed.string("api-key") ?? ProcessInfo.processInfo.environment["AURAL_API_KEY"], !key.isEmpty { keys.insert(key) }
        if let path = parsed.string("api-key-file") {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            keys.formUnion(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        var decoding = DecodingOptions()
        if let beams = parsed.int("beam-size") { decoding.beamSize = beams }
        try decoding.validate()
        let positive = ["max-concurrent", "max-upload-mb", "max-audio-minutes", "idle-timeout"]
        for name in positive {
            if let value = parsed.int(name), value < 1 { throw ServerError.invalidOption(name: name, reason: "must be at least 1, got \(value)") }
        }
        if let queue = parsed.int("queue"), queue < 0 { throw ServerError.invalidOption(name: "queue", reason: "must be 0 or more") }
        if parsed.flag("no-history"), parsed.string("history") != nil {
            throw ServerError.invalidOption(name: "no-history", reason: "--history and --no-history cannot be used together")
        }
        return SpeechServer.Configuration(
            host: parsed.string("host") ?? "127.0.0.1", port: parsed.int("port") ?? 8080, apiKeys: keys,
            wyomingPort: parsed.int("wyoming"),
            defaultModel: parsed.string("model") ?? TranscribeCommand.defaultModel,
            computeType: parsed.string("compute-type").flatMap(ComputeType.init(rawValue:)) ?? .auto,
            maxConcurrent: parsed.int("max-concurrent") ?? 1, queueLimit: parsed.int("queue") ?? 16,
            maxUploadBytes: (parsed.int("max-upload-mb") ?? 100) * 1_000_000,
            maxAudioSeconds: Double((parsed.int("max-audio-minutes") ?? 240) * 60),
            idleTimeoutSeconds: parsed.int("idle-timeout") ?? 60, decodingOptions: decoding,
            history: parsed.flag("no-history") ? nil : HistoryCommand.url(parsed))
    }
}
