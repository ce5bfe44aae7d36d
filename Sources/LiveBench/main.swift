// aural-live-bench: replays recordings through the live configuration (the streaming policy and its phrase results)
// and measures what a user sees: final WER against the file transcription's, per-word latency to the first volatile
// appearance and to stability, each phrase's final after its last word, the flicker of the volatile text, and CPU use. `scripts/live-bench` builds and runs it; see docs/streaming.md.
import AuralAudio
import AuralKit
import AuralWhisper
import Foundation
import Speech

let usage = """
    usage: aural-live-bench [--model NAME] [--cadence SECONDS] [--phase SECONDS | --sweep N] [--jitter SECONDS] [--realtime [--sessions N]] [--manifest FILE.jsonl [--lang CODE]] [--buffer SECONDS] [--trim-keep SECONDS] [--holdback SECONDS] [--beam N] [--aligned MARGIN] [--encoder-pad SECONDS] [--encoder-reuse CONTEXT|all,PADDING,REFRESH|off] [--substitution-context N|off] [--vad low|medium|high] [--compute-type float32|int8|auto] [--show] [--trace] [FILE...]
      deterministic (default): 0.5 s chunks appended one by one, each followed by an update; a word's time on screen is
        the audio received plus that update's measured compute time (the same text on every run)
      --realtime: each file is played into the virtual microphone of scripts/with-pulse and a SpeechSession transcribes
        the default input; times are wall-clock
      --sessions N: with --realtime, N sessions transcribe the virtual microphone at once (one loaded model); a row
        per session, each with its own latencies and WER, and cpu the process's CPU divided by N; a session the
        machine refuses (too busy: SFSpeechError insufficientResources) is reported as refused
      --phase SECONDS: the first update after SECONDS of audio, the rest every cadence (where real-time updates fall)
      --sweep N: replays each file N times, the first update after 0, 1/N, … (N−1)/N of a cadence, and reports the
        whole set: where real-time updates fall varies from run to run, and the mean over phases measures the policy
        better than one replay (deterministic replay only)
      --jitter SECONDS: adds up to SECONDS (uniform, seeded: replay k of a sweep uses seed k) to each interval between
        updates, so they drift against the recording as real-time ones do (deterministic replay only)
      --buffer SECONDS: audio re-decoded before a trim (default 15); --trim-keep SECONDS: audio a trim keeps before the
        received end, cut at a committed sentence's end where one fits (default 6; 0 cuts at the committed word before
        the last) (both deterministic replay only)
      --substitution-context N|off: agreeing words after a one- or two-word substitution that settle it (default 3;
        off: every word waits for two decodes that agree) (deterministic replay only)
      --aligned MARGIN: commit words the alignment ends MARGIN seconds before the audio's end (default: LocalAgreement-2)
      --show: print each file's live and file text
      --trace: print every update (replay: audio time, new finals with their times and confidence, volatile words; real time: each display)
      references: the manifest's text when given, else each file's own offline transcription
    """

struct Item {
    var name: String
    var url: URL
    var reference: String?
}

var modelName = "tiny.en"
var cadence = 0.5  // StreamingTranscription.Configuration.cadenceSeconds
var phase: Double?
var sweep = 1
var jitter = 0.0
var realtime = false
var sessionCount = 1
var computeType = AnalyzerConfiguration.default.computeType
var manifest: String?
var language = "en"
var show = false
var trace = false
var buffer = 15.0
var trimKeep = 6.0
var holdback = 0.0
var beam = 3
var encoderWindow = LiveEncoderWindow.live
var substitutionContext = LiveReplay.liveSubstitutionContextWords
var voiceActivation: SpeechDetector.SensitivityLevel?
var policy = StreamingPolicy.localAgreement
var items: [Item] = []
/// Ends the program with a usage error.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { FileHandle.standardError.write(Data((usage + "\n").utf8)); exit(64) }
        return arguments.removeFirst()
    }
    switch argument {
    case "--model": modelName = value()
    case "--cadence": cadence = Double(value()) ?? cadence
    case "--phase": phase = Double(value())
    case "--sweep": sweep = max(1, Int(value()) ?? 1)
    case "--jitter": jitter = max(0, Double(value()) ?? 0)
    case "--realtime": realtime = true
    case "--sessions":
        guard let count = Int(value()), count >= 1 else { fail("--sessions takes a count of at least 1") }
        sessionCount = count
    case "--manifest": manifest = value()
    case "--lang": language = value()
    case "--show": show = true
    case "--trace": trace = true
    case "--buffer": buffer = Double(value()) ?? buffer
    case "--trim-keep": trimKeep = Double(value()) ?? trimKeep
    case "--holdback": holdback = Double(value()) ?? holdback
    case "--substitution-context":
        let text = value()
        if text == "off" { substitutionContext = nil } else {
            guard let count = Int(text), count >= 1 else { fail("--substitution-context takes a word count of at least 1, or off") }
            substitutionContext = count
        }
    case "--beam": beam = Int(value()) ?? beam
    case "--encoder-pad":
        guard let padding = Double(value()) else { fail("--encoder-pad takes seconds") }
        encoderWindow = .shortened(paddingSeconds: padding)
    case "--encoder-reuse":
        let setting = value()
        let parts = setting.split(separator: ",").map(String.init)
        if setting == "off" {
            encoderWindow = .full
        } else if parts.count == 3, parts[0] == "all" || Double(parts[0]) != nil,
                  let padding = Double(parts[1]), let refresh = Double(parts[2]) {
            encoderWindow = .reused(EncoderReuse(contextSeconds: Double(parts[0]), paddingSeconds: padding, refreshSeconds: refresh))
        } else {
            fail("--encoder-reuse takes CONTEXT|all,PADDING,REFRESH (seconds) or off")
        }
    case "--compute-type":
        guard let parsed = ComputeType(rawValue: value()) else {
            FileHandle.standardError.write(Data("--compute-type takes float32, int8 or auto\n".utf8))
            exit(64)
        }
        computeType = parsed
    case "--vad":
        let level = value()
        guard let parsed = SpeechDetector.SensitivityLevel.allCases.first(where: { "\($0)" == level }) else {
            FileHandle.standardError.write(Data("--vad takes low, medium or high\n".utf8))
            exit(64)
        }
        voiceActivation = parsed
    case "--aligned": policy = .alignedCommit(margin: Double(value()) ?? 0.6)
    case "-h", "--help": print(usage); exit(0)
    default: items.append(Item(name: URL(fileURLWithPath: argument).lastPathComponent, url: URL(fileURLWithPath: argument)))
    }
}
if let manifest {
    let base = URL(fileURLWithPath: manifest).deletingLastPathComponent()
    guard let lines = try? String(contentsOfFile: manifest, encoding: .utf8) else {
        FileHandle.standardError.write(Data("live-bench: cannot read the manifest \(manifest)\n".utf8))
        exit(66)
    }
    for line in lines.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            object["lang"] as? String == language, let audio = object["audio"] as? String
        else { continue }
        // An audio path is the manifest's folder's unless it is absolute.
        let url = audio.hasPrefix("/") ? URL(fileURLWithPath: audio) : base.appendingPathComponent(audio)
        items.append(Item(name: object["id"] as? String ?? audio, url: url, reference: object["text"] as? String))
    }
}
if let missing = items.first(where: { !FileManager.default.fileExists(atPath: $0.url.path) }) {
    FileHandle.standardError.write(Data("live-bench: no such file: \(missing.url.path)\n".utf8))
    exit(66)
}
if realtime && jitter > 0 {
    FileHandle.standardError.write(Data("--jitter shifts a deterministic replay's updates: leave out --realtime\n".utf8))
    exit(64)
}
if sessionCount > 1 && !realtime { fail("--sessions runs sessions on the virtual microphone: add --realtime") }
// As a server would: sessions the machine cannot take are refused rather than slowing the others.
if sessionCount > 1 { LiveLoad.shared.refusesWhenFull = true }
if sweep > 1 && (realtime || phase != nil) {
    FileHandle.standardError.write(Data("--sweep replays deterministically at phases of its own: leave out --realtime and --phase\n".utf8))
    exit(64)
}
guard !items.isEmpty else {
    print(usage)
    exit(64)
}

let manager = ModelManager()
let folder = try manager.folder(for: modelName)
let model = try WhisperModel(folder: folder, computeType: computeType)
let cpuName = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
print("live-bench: model \(modelName) (\(model.computeType)), cadence \(cadence) s\(phase.map { ", phase \($0) s" } ?? "")\(jitter > 0 ? " + up to \(jitter) s" : ""), \(realtime ? "real time (virtual microphone)" : "deterministic replay"), \(AvailableCores.count) threads, \(cpuName)")

/// Seconds a real-time session runs before the recording plays, and after it ends (its last words are flushed).
let sessionLeadIn = 0.3
let sessionTail = 1.5

nonisolated func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The displays of a deterministic replay, and its CPU seconds.
@MainActor
func replay(_ samples: [Float], phase: Double?, seed: UInt64) throws -> ([Display], Double) {
    let cpu = cpuSeconds()
    let events = try LiveReplay(
        model: model, cadence: cadence, phase: phase, jitter: jitter, seed: seed, maxBufferSeconds: buffer, trimKeepSeconds: trimKeep, holdbackSeconds: holdback, policy: policy,
        encoderWindow: encoderWindow, substitutionContextWords: substitutionContext, voiceActivation: voiceActivation.map { .init(sensitivityLevel: $0) }, options: LiveReplay.liveOptions(language: language, beamSize: beam)).run(samples)
    var finals = ""
    var displays: [Display] = []
    if show {
        // The last final words, with the update that committed them: where a replay's end goes wrong.
        let tail = events.enumerated().flatMap { index, event in event.committed.map { (index, event, $0) } }.suffix(4)
        for (index, event, word) in tail {
            print(String(
                format: "final %@ (%.2f–%.2f s, p %.2f) at update %d (audio %.1f s%@)", word.text as NSString, word.start, word.end,
                word.confidence, index, event.audioTime, event.isFlush ? ", flush" : ""))
        }
    }
    // What a session's consumer shows: the phrase finals, then the latest volatile result (which carries the open
    // phrase and the words still being decided); a final withdraws the volatile text until the next volatile result.
    var volatile = ""
    for event in events {
        if trace {
            let committed = event.committed.map { String(format: "%@[%.2f–%.2f p%.2f]", $0.text as NSString, $0.start, $0.end, $0.confidence) }.joined()
            print(String(format: "%6.2f s%@ final:%@ | volatile:%@", event.audioTime, event.isFlush ? " flush" : "",
                committed as NSString, event.volatile.joined() as NSString))
        }
        finals += event.phraseFinal
        if let shown = event.volatileResult { volatile = shown } else if !event.phraseFinal.isEmpty { volatile = "" }
        displays.append(Display(time: event.emissionTime, finalText: finals, volatileText: volatile))
    }
    return (displays, cpuSeconds() - cpu)
}

/// The displays of `sessionCount` real-time sessions on the virtual microphone (nil for one the machine refused),
/// and the process's CPU seconds.
@MainActor
func live(_ url: URL) async throws -> ([[Display]?], Double) {
    let cpu = cpuSeconds()
    let started = Date()
    var sessions: [SpeechSession] = []
    var consumers: [Task<[Display]?, any Error>] = []
    for index in 0..<sessionCount {
        let session = SpeechSession(
            locale: Locale(identifier: language), reportingOptions: [.volatileResults],
            analyzerConfiguration: AnalyzerConfiguration(computeType: computeType), model: modelName)
        session.streamingPolicy = policy
        if let voiceActivation { session.configureVoiceActivation(detectionOptions: .init(sensitivityLevel: voiceActivation)) }
        sessions.append(session)
        consumers.append(consume(session.startTranscribing(), started: started, traced: trace && index == 0))
    }
    try await Task.sleep(for: .seconds(sessionLeadIn))
    let player = Process()
    player.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    player.arguments = ["paplay", "--device=mic_feed", url.path]
    let playStart = Date()
    try player.run()
    while player.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    try await Task.sleep(for: .seconds(sessionTail))
    for session in sessions { await session.stopTranscribing() }
    let offset = playStart.timeIntervalSince(started)
    var results: [[Display]?] = []
    for consumer in consumers {
        results.append(try await consumer.value.map { displays in
            displays.map { Display(time: $0.time - offset, finalText: $0.finalText, volatileText: $0.volatileText) }
        })
    }
    return (results, cpuSeconds() - cpu)
}

/// What a session's consumer shows, timed from `started`; nil when the session was refused for want of cores.
@MainActor
func consume(_ stream: AsyncThrowingStream<SpeechTranscriber.Result, any Error>, started: Date, traced: Bool) -> Task<[Display]?, any Error> {
    Task { @MainActor in
        var finals = ""
        var volatile: SpeechTranscriber.Result?
        var displays: [Display] = []
        do {
            for try await result in stream {
                let time = Date().timeIntervalSince(started)
                if result.isFinal {
                    // As `aural listen` shows it: the volatile words after the final's range stay until the next
                    // volatile result replaces them.
                    finals += String(result.text.characters)
                    let rest = volatile.map { String($0.text(startingAt: result.range.end).characters) } ?? ""
                    volatile = nil
                    displays.append(Display(time: time, finalText: finals, volatileText: rest))
                } else {
                    volatile = result
                    displays.append(Display(time: time, finalText: finals, volatileText: String(result.text.characters)))
                }
                if traced, let shown = displays.last {
                    print(String(format: "%7.3f s %@ …%@ | %@", shown.time, result.isFinal ? "final   " : "volatile",
                        String(shown.finalText.suffix(40)) as NSString, shown.volatileText as NSString))
                }
            }
        } catch let error as SpeechSessionError {
            print("session refused or failed: \(error.localizedDescription)")
            if displays.isEmpty { return nil }
            throw error
        }
        return displays
    }
}

/// One row of the table: a replay, or the whole set ("overall"); `cpu` is CPU seconds per audio second.
func printRow(_ name: String, seconds: Double, werDelta: Double, report: LatencyReport.Figures, flicker: Double, cpu: Double) {
    let first = Summary(values: report.firstAppearance), stable = Summary(values: report.stable)
    let final = Summary(values: report.phraseFinal)
    print(String(
        format: "%@ %6.1f %+8.1f %11.2f %10.2f %10.2f %11.2f %10.2f %11.2f %10.2f %8.3f %5.1f%%",
        name.prefix(28).padding(toLength: 28, withPad: " ", startingAt: 0) as NSString, seconds, werDelta, first.mean,
        first.percentile(50), first.percentile(90), stable.mean, stable.percentile(90), final.mean, final.percentile(90), flicker, 100 * cpu))
}

var reports: [LatencyReport] = []
var totalAudio = 0.0
var totalCPU = 0.0
/// Seconds the CPU of the rows is divided by: the audio's, and in real time the sessions' lead-in and tail too.
var totalSessionSeconds = 0.0
/// The first update of each replay: `--phase`, or the sweep's phases (0 is the default, the first update after a cadence).
let phases: [Double?] = sweep == 1 ? [phase] : (0..<sweep).map { cadence * Double($0) / Double(sweep) }
print("file                         dur_s  ΔWER_pt  first_mean  first_p50  first_p90 stable_mean stable_p90 phrase_mean phrase_p90  flicker    cpu")
for item in items {
    let samples = try AudioFileLoader.loadMono16k(url: item.url)
    let duration = Double(samples.count) / 16_000
    let offline = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: language, wordTimestamps: true))
    let fileText = offline.segments.map(\.text).joined()
    let referenceWords = offline.segments.flatMap { $0.words ?? [] }.map { (word: $0.word, end: $0.end) }
    for (index, phase) in phases.enumerated() {
        let (runs, cpu): ([[Display]?], Double)
        if realtime { (runs, cpu) = try await live(item.url) } else {
            let (displays, replayCPU) = try replay(samples, phase: phase, seed: UInt64(index))
            (runs, cpu) = ([displays], replayCPU)
        }
        totalCPU += cpu
        for (session, displays) in runs.enumerated() {
            var name = sweep == 1 ? item.name : String(item.name.prefix(22)) + String(format: " @%.2f", phase ?? 0)
            if runs.count > 1 { name = String(name.prefix(24)) + " #\(session + 1)" }
            guard let displays else {
                print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + " refused: the machine was full")
                continue
            }
            let report = LatencyReport(displays: displays, reference: referenceWords, referenceText: item.reference ?? fileText, fileText: fileText)
            reports.append(report)
            if show {
                print("live: " + (displays.last?.finalText ?? ""))
                print("file: " + fileText)
            }
            totalAudio += duration
            totalSessionSeconds += realtime ? duration + sessionLeadIn + sessionTail : duration
            printRow(
                name, seconds: duration, werDelta: report.liveWER - report.fileWER, report: report.figures,
                flicker: report.normalizedErasure, cpu: cpu / Double(runs.count) / (realtime ? duration + sessionLeadIn + sessionTail : duration))
        }
    }
}
let erased = reports.map(\.erasedWords).reduce(0, +)
let words = reports.map(\.finalWordCount).reduce(0, +)
let liveWER = reports.map(\.liveWER).reduce(0, +) / Double(reports.count)
let fileWER = reports.map(\.fileWER).reduce(0, +) / Double(reports.count)
printRow(
    "overall", seconds: totalAudio, werDelta: liveWER - fileWER,
    report: LatencyReport.Figures(
        firstAppearance: reports.flatMap(\.firstAppearance), stable: reports.flatMap(\.stable), phraseFinal: reports.flatMap(\.phraseFinal)),
    flicker: words == 0 ? 0 : Double(erased) / Double(words), cpu: totalCPU / max(totalSessionSeconds, 1e-9))
print("latencies in seconds from each word's end (offline word timestamps): first shown, stable (shown as it ends up, never changed after), and a phrase's final after its last word; ΔWER = live final WER − file WER, mean over files\(sweep > 1 ? " and phases" : "");")
print("cpu = CPU seconds / audio seconds (100% = one core busy; in real time the sessions' \(sessionLeadIn + sessionTail) s around each recording count as audio)\(sessionCount > 1 ? ", per session: the process's divided by \(sessionCount)" : "")")
