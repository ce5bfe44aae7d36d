import AuralHistory
import AuralAudio
import AuralKit
import AuralVAD
import AuralWhisper
import Foundation

/// `aural transcribe FILE...`: files to text, subtitles or JSON.
enum TranscribeCommand {
    static let spec = CommandSpec(
        name: "aural transcribe",
        abstract: "Transcribe or translate audio and video files with Whisper",
        options: [
            OptionSpec("model", short: "m", .string("NAME|PATH"), help: "Installed model name (tiny.en, base, …) or a CTranslate2 model folder", defaultValue: defaultModel),
            OptionSpec("language", short: "l", .string("CODE"), help: "Spoken language (en, de, zh, …); detected when left out"),
            OptionSpec("task", .choice(WhisperTask.allCases.map(\.rawValue)), help: "Transcribe in the spoken language, or translate to English", defaultValue: "transcribe"),
            OptionSpec("format", short: "f", .choice(TranscriptFormat.allCases.map(\.rawValue)), help: "Output format", defaultValue: "txt"),
            OptionSpec("output-dir", short: "o", .string("DIR"), help: "Write FILE's transcript to DIR/<name>.<format> instead of standard output"),
            OptionSpec("beam-size", .int("N"), help: "Beams at temperature 0 (1 is greedy)", defaultValue: "5"),
            OptionSpec("best-of", .int("N"), help: "Samples drawn at temperatures above 0", defaultValue: "5"),
            OptionSpec("temperature", .double("T"), help: "First sampling temperature", defaultValue: "0"),
            OptionSpec("temperature-increment-on-fallback", .double("T"), help: "Step to the next temperature when a decode fails the thresholds (0: no fallback)", defaultValue: "0.2"),
            OptionSpec("word-timestamps", .flag, help: "Align each word to the audio (adds words to json; per-word cues are not written to srt/vtt)"),
            OptionSpec("initial-prompt", .string("TEXT"), help: "Text that conditions the first window (names, spelling, style)"),
            OptionSpec("no-condition-on-previous-text", .flag, help: "Decode each window without the previous window's text"),
            OptionSpec("vad", .flag, help: "Transcribe only the speech Silero VAD detects (faster-whisper's vad_filter); times stay the file's"),
            OptionSpec("threads", .int("N"), help: "Threads for the matrix products", defaultValue: "all cores"),
            OptionSpec("compute-type", .choice(ComputeType.allCases.map(\.rawValue)), help: "float32 (faster-whisper's float32 text), int8 (quantized weights and activations, faster, less memory) or auto (the faster on this machine)", defaultValue: "float32"),
            OptionSpec("quiet", short: "q", .flag, help: "No progress bar"),
            OptionSpec("save", .flag, help: "Also store each transcript in the history as its segments arrive (see 'aural history'; implied by --history)"),
            HistoryCommand.historyOption,
        ],
        positionals: [PositionalSpec("FILE", help: "Audio or video files in any format FFmpeg reads (WAV, FLAC, MP3, Ogg, M4A, WebM, MP4, MKV, …); the first audio track is used", isRepeatable: true)]
    )

    /// The model used when `--model` is left out: the catalog's default for files.
    static let defaultModel = ModelCatalog.standard.defaults[.files]!

    static func run(_ arguments: [String]) async -> Int32 {
        await spec.run(arguments, run)
    }

    static func run(_ parsed: ParsedArguments) async -> Int32 {
        let files = parsed.positionals("FILE")
        let format = parsed.string("format").flatMap(TranscriptFormat.init(rawValue:)) ?? .txt
        let options: DecodingOptions
        do {
            options = try decodingOptions(parsed)
        } catch {
            report(error)
            return UsageError.exitCode
        }
        let model: WhisperModel
        let loadStart = Date()
        do {
            let computeType = parsed.string("compute-type").flatMap(ComputeType.init(rawValue:)) ?? .float32
            model = try WhisperModel(
                folder: try ModelManager.shared.folder(for: parsed.string("model") ?? defaultModel), computeType: computeType)
        } catch {
            report(error)
            return 1
        }
        var detector: SileroVAD?
        if options.vadFilter != nil {
            do {
                detector = try SileroVAD(contentsOf: ModelManager.shared.voiceActivityModelURL)
            } catch {
                report(error)
                return 1
            }
        }
        let loadSeconds = Date().timeIntervalSince(loadStart)
        let transcriber = Transcriber(model: model, threads: parsed.int("threads"), voiceActivityDetector: detector)
        let outputDirectory = parsed.string("output-dir").map { URL(fileURLWithPath: $0, isDirectory: true) }
        if let outputDirectory {
            do {
                try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            } catch {
                report(error, context: outputDirectory.path)
                return 1
            }
        }

        // History that cannot be opened or written is a warning: the transcripts are still printed or written.
        let history = parsed.flag("save") || parsed.string("history") != nil ? HistoryRecorder(url: HistoryCommand.url(parsed)) : nil
        let modelName = parsed.string("model") ?? defaultModel
        var failures = 0
        for file in files {
            do {
                try await transcribe(
                    file: file, with: transcriber, options: options, format: format, outputDirectory: outputDirectory,
                    showProgress: !parsed.flag("quiet"), modelLoadSeconds: loadSeconds,
                    history: history.map { ($0, modelName) })
            } catch {
                report(error, context: file)
                failures += 1
            }
        }
        return failures == 0 ? 0 : 1
    }

    /// The library's options with what the command line changed; defaults come from `DecodingOptions.init`.
    static func decodingOptions(_ parsed: ParsedArguments) throws -> DecodingOptions {
        var options = DecodingOptions()
        options.language = parsed.string("language")
        if let task = parsed.string("task").flatMap(WhisperTask.init(rawValue:)) { options.task = task }
        if let beamSize = parsed.int("beam-size") { options.beamSize = beamSize }
        if let bestOf = parsed.int("best-of") { options.bestOf = bestOf }
        let start = parsed.double("temperature") ?? options.temperatures[0]
        let increment = parsed.double("temperature-increment-on-fallback") ?? 0.2
        if parsed.double("temperature") != nil || parsed.double("temperature-increment-on-fallback") != nil {
            guard start >= 0, start <= 1, increment >= 0 else {
                throw TranscriptionError.invalidOption(name: "temperature", reason: "needs 0 ≤ T ≤ 1 and an increment ≥ 0")
            }
            options.temperatures = increment > 0 ? Array(stride(from: start, through: 1.0 + 1e-9, by: increment)) : [start]
        }
        options.wordTimestamps = parsed.flag("word-timestamps")
        options.initialPrompt = parsed.string("initial-prompt")
        if parsed.flag("no-condition-on-previous-text") { options.conditionOnPreviousText = false }
        if parsed.flag("vad") { options.vadFilter = .fasterWhisper }
        if let threads = parsed.int("threads"), threads < 1 {
            throw TranscriptionError.invalidOption(name: "threads", reason: "must be at least 1, got \(threads)")
        }
        try options.validate()
        return options
    }

    static func transcribe(
        file: String, with transcriber: Transcriber, options: DecodingOptions, format: TranscriptFormat,
        outputDirectory: URL?, showProgress: Bool, modelLoadSeconds: Double,
        history: (recorder: HistoryRecorder, model: String)? = nil
    ) async throws {
        let started = Date()
        let url = URL(fileURLWithPath: file)
        // Opening reads the header: a missing, foreign or damaged file fails here, before any work. The engine then
        // reads the file twice in chunks (see `SampleReading`), so memory does not grow with its length.
        let duration = try AudioFileReader(url: url).duration
        var progress = ProgressBar(
            label: url.lastPathComponent, total: duration ?? 0, enabled: showProgress && isatty(STDERR_FILENO) == 1)
        var info: TranscriptionInfo?
        var segments: [Segment] = []
        let streamText = format == .txt && outputDirectory == nil
        for try await event in transcriber.events(reading: { try AudioFileSamples(url: url) }, options: options) {
            switch event {
            case .info(let value):
                info = value
                history?.recorder.begin(TranscriptStore.SessionInfo(
                    source: url.standardizedFileURL.path, locale: Locale(identifier: value.language), model: history?.model,
                    startedAt: started, languageProbability: options.language == nil ? value.languageProbability : nil))
            case .segment(let segment):
                history?.recorder.record(segment)
                if streamText {
                    progress.finish()
                    FileHandle.standardOutput.write(Data((segment.text.trimmingCharacters(in: .whitespaces) + "\n").utf8))
                } else {
                    segments.append(segment)  // the other formats are written once the file is done
                }
            case .progress(let fraction):
                progress.update(fraction)
            }
        }
        progress.finish()
        guard let info else { return }
        history?.recorder.end(audioDuration: info.duration)
        if streamText { return }
        let writer: any TranscriptWriter = format == .json
            ? JSONWriter(timings: TranscriptionTimings(
                modelLoadSeconds: modelLoadSeconds, transcriptionSeconds: Date().timeIntervalSince(started)))
            : format.writer
        let rendered = writer.render(segments: segments, info: info)
        if let outputDirectory {
            let target = outputDirectory.appendingPathComponent(url.deletingPathExtension().lastPathComponent + "." + format.fileExtension)
            try rendered.write(to: target, atomically: true, encoding: .utf8)
        } else {
            print(rendered, terminator: rendered.hasSuffix("\n") ? "" : "\n")
        }
    }
}
