import Foundation
import Speech
import Synchronization
import TestSupport
import Testing

// The README's quick start for Apple's Speech framework, as printed there (its `import Speech` is this file's).
// `print` is the suite's own, so that the test reads what it printed.

/// Transcribes the default input for `seconds`, printing volatile and final results.
func transcribeMicrophone(for seconds: Double, print: @escaping @Sendable (Any...) -> Void) async throws {
    let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .progressiveTranscription)
    let analyzer = SpeechAnalyzer(modules: [transcriber])

    // The model comes from Hugging Face the first time, then from disk.
    if let installation = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
        try await installation.downloadAndInstall()
    }

    // The microphone's buffers, in its own format: the analyzer converts them.
    let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)
    let engine = AVAudioEngine()
    let microphone = engine.inputNode
    microphone.installTap(onBus: 0, bufferSize: 4096, format: microphone.outputFormat(forBus: 0)) { buffer, _ in
        inputBuilder.yield(AnalyzerInput(buffer: buffer))
    }
    engine.prepare()
    try engine.start()
    try await analyzer.start(inputSequence: inputSequence)

    let printer = Task {
        for try await result in transcriber.results {
            print(result.isFinal ? "Final:" : "Volatile:", String(result.text.characters))
        }
    }

    try await Task.sleep(for: .seconds(seconds))   // someone speaks
    engine.stop()
    microphone.removeTap(onBus: 0)
    inputBuilder.finish()
    try await analyzer.finalizeAndFinishThroughEndOfInput()   // the last words become final; `results` ends
    try await printer.value
}

/// The README's Speech-framework quick start on the private sound server's virtual microphone, a real recording played
/// into it. Run with the other live-microphone suites (`--filter LiveMicrophone`).
@Suite(
    "Live microphone: the README's Speech quick start", .requiresVirtualMicrophone, .exclusiveVirtualMicrophone,
    .requiresFixtures(audio: ["beckett.wav"], models: ["tiny.en"]))
struct LiveMicrophoneSpeechQuickStart {
    @Test("transcribeMicrophone prints volatile results, then finals that read the recording")
    func quickStart() async throws {
        let printed = Printed()
        let player = try VirtualMicrophone.play(Fixtures.audio("beckett.wav"), delay: 1)
        defer { player.terminate() }
        try await transcribeMicrophone(for: 13) { items in printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let lines = printed.lines
        #expect(lines.contains { $0.hasPrefix("Volatile: ") })
        let finals = lines.filter { $0.hasPrefix("Final: ") }.map { String($0.dropFirst("Final: ".count)) }
        let reference = try await SeedLikeReference.text("beckett.wav")
        // Live decoding of a 10-s recording in real time: within 15 % of the file transcription (two words of ~25).
        #expect(WordErrorRate.percent(reference: reference, hypothesis: finals.joined(separator: " ")) <= 15, "\(lines)")
    }
}

/// What the example printed, line by line.
private final class Printed: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
