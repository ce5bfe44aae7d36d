import AuralHistory
import AuralAudio
import AuralKit
import Foundation

/// `aural listen`: live transcription of the microphone or of what the machine plays, over `SpeechSession`.
///
/// In a terminal it shows final text, dim volatile text replaced in place and a status line, and reads keys
/// (space pauses and resumes, `q` or Ctrl-C stops with the flush). Piped, it prints each final result as a line;
/// with `--json`, every result as a JSON line (`ListenResultLine`).
enum ListenCommand {
    static let spec = CommandSpec(
        name: "aural listen",
        abstract: "Transcribe the microphone or the machine's audio live (space pauses, q stops)",
        options: [
            OptionSpec("device", short: "d", .string("NAME"), help: "Input to record (see 'aural devices'); with --system-audio, the output to record", defaultValue: "the default input, following changes"),
            OptionSpec("system-audio", .flag, help: "Transcribe what the machine plays instead of the microphone"),
            OptionSpec("app", .string("NAME|ID"), help: "Transcribe what one application plays (see 'aural devices --applications')"),
            OptionSpec("exclude-self", .flag, help: "With --system-audio, leave out this process's own sound"),
            OptionSpec("locale", short: "l", .string("ID"), help: "Language to transcribe (en, en-US, de, …)", defaultValue: "the system's"),
            OptionSpec("model", short: "m", .string("NAME|PATH"), help: "Installed model name or a CTranslate2 model folder", defaultValue: "the locale's live model"),
            OptionSpec("compute-type", .choice(ComputeType.allCases.map(\.rawValue)), help: "float32, int8 (cheaper updates, less memory) or auto (the faster on this machine)", defaultValue: AnalyzerConfiguration.default.computeType.rawValue),
            OptionSpec("preset", .choice(Preset.allCases.map(\.rawValue)), help: "Reporting preset, as SpeechTranscriber.Preset (volatile results, alternatives, word times)"),
            OptionSpec("vad", .choice(["low", "medium", "high"]), help: "Voice activation: decode only speech (Silero VAD at this sensitivity); each pause makes the text final"),
            OptionSpec("contextual-strings", .string("A,B,…"), help: "Words and names to expect, comma-separated", isRepeatable: true),
            OptionSpec("json", .flag, help: "Print every result (volatile and final, with word times and confidences) as JSON lines"),
            OptionSpec("duration", .double("SECONDS"), help: "Stop (with the flush) after this long, counted from when capture starts"),
            OptionSpec("no-color", .flag, help: "No colours or text attributes (also when NO_COLOR is set)"),
            HistoryCommand.historyOption,
            OptionSpec("no-history", .flag, help: "Do not record this session in the history"),
        ]
    )

    /// `--preset`'s names for `SpeechTranscriber.Preset`'s presets.
    enum Preset: String, CaseIterable {
        case transcription
        case transcriptionWithAlternatives = "transcription-with-alternatives"
        case timeIndexedTranscriptionWithAlternatives = "time-indexed-transcription-with-alternatives"
        case progressive
        case timeIndexedProgressive = "time-indexed-progressive"

        var preset: SpeechTranscriber.Preset {
            switch self {
            case .transcription: return .transcription
            case .transcriptionWithAlternatives: return .transcriptionWithAlternatives
            case .timeIndexedTranscriptionWithAlternatives: return .timeIndexedTranscriptionWithAlternatives
            case .progressive: return .progressiveTranscription
            case .timeIndexedProgressive: return .timeIndexedProgressiveTranscription
            }
        }
    }

    /// What to capture.
    enum Capture: Equatable {
        /// A microphone: the default input (nil, following changes) or a named one.
        case microphone(device: String?)
        /// What the default output (nil) or a named output plays.
        case systemAudio(output: String?, excludingSelf: Bool)
        /// What one application plays, by name or id.
        case application(String)
    }

    /// The command line, checked.
    struct Options {
        var capture: Capture
        var locale: Locale
        var model: String?
        var computeType: ComputeType
        var preset: SpeechTranscriber.Preset?
        var contextualStrings: [String]
        var json: Bool
        var duration: Double?
        var colors: Bool
        /// Voice activation's sensitivity, or nil to decode all audio.
        var voiceActivation: SpeechDetector.SensitivityLevel?
        /// The history database the session is recorded in, or nil with --no-history.
        var history: URL?

        init(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
            func usage(_ message: String) -> UsageError { UsageError(message: message, command: spec.name) }
            let device = parsed.string("device")
            if let app = parsed.string("app") {
                if device != nil { throw usage("--app and --device cannot be used together") }
                if parsed.flag("exclude-self") { throw usage("--exclude-self has no effect with --app") }
                capture = .application(app)
            } else if parsed.flag("system-audio") {
                capture = .systemAudio(output: device, excludingSelf: parsed.flag("exclude-self"))
            } else {
                if parsed.flag("exclude-self") { throw usage("--exclude-self needs --system-audio") }
                capture = .microphone(device: device)
            }
            locale = parsed.string("locale").map { Locale(identifier: $0) } ?? .current
            model = parsed.string("model")
            computeType = parsed.string("compute-type").flatMap(ComputeType.init(rawValue:)) ?? AnalyzerConfiguration.default.computeType
            preset = parsed.string("preset").flatMap(Preset.init(rawValue:))?.preset
            contextualStrings = parsed.strings("contextual-strings")
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            json = parsed.flag("json")
            duration = parsed.double("duration")
            if let duration, duration <= 0 { throw usage("--duration needs a positive number of seconds") }
            colors = !parsed.flag("no-color") && environment["NO_COLOR", default: ""].isEmpty && environment["TERM"] != "dumb"
            voiceActivation = parsed.string("vad").flatMap { level in
                SpeechDetector.SensitivityLevel.allCases.first { "\($0)" == level }
            }
            if parsed.flag("no-history"), parsed.string("history") != nil { throw usage("--history and --no-history cannot be used together") }
            history = parsed.flag("no-history") ? nil : HistoryCommand.url(parsed)
        }
    }

    static func run(_ arguments: [String]) async -> Int32 {
        await spec.run(arguments) { parsed in
            let options: Options
            do throws(UsageError) {
                options = try Options(parsed, environment: ProcessInfo.processInfo.environment)
            } catch {
                printError(error.description)
                return UsageError.exitCode
            }
            return await ListenRun(options: options).run()
        }
    }

    /// The audio source for `capture`, measured by `meter`. Resolves an application's name to its playback now.
    static func source(for capture: Capture, meter: AudioMeter) async throws -> MeteredSource {
        switch capture {
        case .microphone(let device):
            return MeteredSource(meter: meter) { PulseMicrophoneSource(deviceName: device) }
        case .systemAudio(let output, let excludingSelf):
            let target: PulseSystemAudioSource.Target = output.map { .output(name: $0) } ?? .defaultOutput
            return MeteredSource(meter: meter) {
                PulseSystemAudioSource(target: target, excludesCurrentProcessAudio: excludingSelf)
            }
        case .application(let name):
            let id = try await applicationID(named: name)
            return MeteredSource(meter: meter) { PulseSystemAudioSource(target: .application(id: id)) }
        }
    }

    /// The playing application called `name` (case-insensitive; or its id as `aural devices --applications` shows).
    static func applicationID(named name: String) async throws -> Int {
        // Listed on a thread of its own: a slow sound server does not hold the main actor.
        let applications = try await AudioDevices.current.applications
        let bare = name.hasPrefix("#") ? String(name.dropFirst()) : name
        if let id = Int(bare), applications.contains(where: { $0.id == id }) { return id }
        if let match = applications.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
            ?? applications.first(where: { $0.name.localizedCaseInsensitiveContains(name) }) {
            return match.id
        }
        throw AudioDeviceError.deviceNotFound(name: name)
    }

    /// How the capture is named on the status line.
    static func inputLabel(_ capture: Capture) -> String {
        switch capture {
        case .microphone(let device): return device ?? "default input"
        case .systemAudio(let output, let excludingSelf):
            return (output.map { "output \($0)" } ?? "system audio") + (excludingSelf ? " (without aural)" : "")
        case .application(let name): return "app \(name)"
        }
    }
}

/// One `aural listen`: the session, its output, and the tasks that feed keys, signals, status and the level meter
/// to it. Everything runs on the main actor, where the session lives.
@MainActor
final class ListenRun {
    private let options: ListenCommand.Options
    private let session: SpeechSession
    private let meter = AudioMeter()
    private var output: any ListenOutput
    private var statusLine: StatusLine
    /// Where final results are recorded as they arrive (nil with --no-history).
    private let history: HistoryRecorder?
    private var side: [Task<Void, Never>] = []
    private var stopRequested = false
    private var isTerminal = false
    /// Set once the output is finished; nothing is drawn after that.
    private var finished = false

    init(options: ListenCommand.Options) {
        self.options = options
        session = SpeechSession(
            locale: options.locale, preset: options.preset,
            analyzerConfiguration: AnalyzerConfiguration(computeType: options.computeType), model: options.model)
        statusLine = StatusLine(
            model: options.model ?? "…", input: ListenCommand.inputLabel(options.capture),
            voiceActivation: options.voiceActivation.map { "vad \($0)" } ?? "vad off")
        output = options.json ? JSONLinesListenOutput() : TextLinesListenOutput()
        if let level = options.voiceActivation {
            session.configureVoiceActivation(detectionOptions: .init(sensitivityLevel: level))
        }
        history = options.history.map { HistoryRecorder(url: $0) }
    }

    func run() async -> Int32 {
        let source: MeteredSource
        do {
            source = try await ListenCommand.source(for: options.capture, meter: meter)
        } catch {
            report(error)
            return 1
        }
        if !options.json, isatty(STDOUT_FILENO) == 1 {
            // A pseudo-terminal nobody sized (`script` without a terminal of its own) reports 0 × 0.
            let size = TerminalOutput.size() ?? (width: 80, height: 24)
            isTerminal = true
            output = TerminalListenOutput(width: size.width, height: size.height, colors: options.colors)
        }
        let readsKeys = isTerminal && RawMode.enable()
        defer { RawMode.restore() }

        let strings = options.contextualStrings
        let stream = session.startTranscribing(
            from: source, contextualStrings: strings.isEmpty ? nil : [.general: strings])
        startSideTasks(readsKeys: readsKeys)
        var modelName = options.model
        if modelName == nil { modelName = try? await ModelManager.shared.model(for: options.locale).name }
        history?.begin(TranscriptStore.SessionInfo(
            source: ListenCommand.inputLabel(options.capture), locale: options.locale, model: modelName))
        var failure: (any Error)?
        do {
            for try await result in stream where !finished {
                // Each final is committed before it is shown: a killed process loses nothing that was final.
                if result.isFinal { history?.record(result) }
                output.show(result)
                if isTerminal {
                    statusLine.latency = meter.capturedSeconds - result.range.end.seconds
                }
            }
        } catch {
            failure = error
        }
        history?.end(audioDuration: meter.capturedSeconds)
        for task in side { task.cancel() }
        finished = true
        output.finish()
        RawMode.restore()
        if let failure {
            report(failure)
            return 1
        }
        return 0
    }

    // MARK: - Side tasks

    private func startSideTasks(readsKeys: Bool) {
        side.append(Task { await self.followStatus() })
        side.append(Task { await self.followSignals() })
        if case .microphone(nil) = options.capture { side.append(Task { await self.followDefaultInput() }) }
        if readsKeys { side.append(Task { await self.followKeys() }) }
        if isTerminal {
            side.append(Task { await self.resolveModelName() })
            side.append(Task { await self.refreshStatusLine() })
        }
    }

    private func followStatus() async {
        var durationStarted = false
        for await status in session.statusStream {
            statusLine.status = status
            if status == .paused { meter.resetLevel() }
            redrawStatus()
            if status == .transcribing, !durationStarted, let duration = options.duration {
                durationStarted = true
                side.append(Task {
                    try? await Task.sleep(for: .seconds(duration))
                    if !Task.isCancelled { self.stop() }
                })
            }
        }
    }

    private func followSignals() async {
        for await signal in SignalEvents.stream([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) {
            if signal == SIGWINCH {
                if isTerminal, !finished, let size = TerminalOutput.size() { output.resize(width: size.width, height: size.height) }
            } else if stopRequested {
                // A second signal: the user does not want to wait for the flush.
                RawMode.restore()
                exit(130)
            } else {
                stop()
            }
        }
    }

    private func followKeys() async {
        for await key in KeyInput.bytes() {
            switch key {
            case KeyInput.space:
                await togglePause()
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), KeyInput.controlC, KeyInput.controlD:
                if stopRequested, key == KeyInput.controlC {
                    RawMode.restore()
                    exit(130)
                }
                stop()
            default:
                break
            }
        }
    }

    private func followDefaultInput() async {
        var current: AudioInputInfo?
        for await info in session.audioInputConfigurationStream {
            guard let info else { continue }
            if let current, current.uid != info.uid {
                if !finished { output.notice("— input changed to \(info.portName) (\(info.uid)) —") }
            }
            current = info
            statusLine.input = info.portName
            redrawStatus()
        }
    }

    private func resolveModelName() async {
        guard options.model == nil else { return }
        let name = (try? await ModelManager.shared.model(for: options.locale).name) ?? "default model"
        statusLine.model = name
        redrawStatus()
    }

    /// Redraws the status line ten times a second, for the level meter.
    private func refreshStatusLine() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            if statusLine.status == .transcribing { statusLine.level = meter.takeLevel() }
            if let level = options.voiceActivation {
                statusLine.voiceActivation = "vad \(level): " + (session.isSpeechDetected ? "speech" : "quiet")
            }
            redrawStatus()
        }
    }

    private func redrawStatus() {
        if isTerminal, !finished { output.show(status: statusLine) }
    }

    // MARK: - Control

    /// Stops with the flush: the words already heard arrive as final, then the stream ends.
    private func stop() {
        guard !stopRequested else { return }
        stopRequested = true
        Task { await session.stopTranscribing() }
    }

    private func togglePause() async {
        switch session.status {
        case .transcribing:
            await session.pauseTranscribing()
        case .paused:
            // A failure to restart ends the stream with the error, which `run` reports.
            try? await session.resumeTranscribing()
        default:
            break
        }
    }
}
