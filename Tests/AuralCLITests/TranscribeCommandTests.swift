import Foundation
import TestSupport
import Testing

@Suite("aural transcribe", .heavyWork)
struct TranscribeCommandTests {
    @Test("prints the transcript of a real recording")
    func transcribesToStandardOutput() throws {
        let result = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--beam-size", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Ever tried, ever failed.\nNo matter, try again.\nFail again.\nFail better.\n")
    }

    @Test("--vad transcribes the detected speech: the same text for a recording that is all speech")
    func voiceActivityFilter() throws {
        let result = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--beam-size", "1", "--vad", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Ever tried, ever failed.\nNo matter, try again.\nFail again.\nFail better.\n")
    }

    @Test("--vad without the Silero VAD weights is an error that says how to install them")
    func voiceActivityFilterWithoutWeights() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("aural-vad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cache) }
        try FileManager.default.createSymbolicLink(
            at: cache.appendingPathComponent("tiny.en"), withDestinationURL: Fixtures.modelFolder("tiny.en"))
        let result = try CLI.run(
            ["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--vad", "-q"],
            environment: ["AURALKIT_MODELS_DIR": cache.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("The Silero VAD weights are not installed"))
        #expect(result.stderr.contains("hint: ") && result.stderr.contains("scripts/setup"))
    }

    /// The baseline kernels (and OpenBLAS's pre-AVX kernel) are what a CPU without AVX2 runs; hiding AVX2 and AVX-512
    /// here runs that path on this machine, which must give the same transcript.
    @Test("gives the same transcript with AVX2 hidden (AURALKIT_CPU_LEVEL=baseline)")
    func baselineKernels() throws {
        let arguments = ["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--beam-size", "1"]
        let fast = try CLI.run(arguments)
        let baseline = try CLI.run(arguments, environment: ["AURALKIT_CPU_LEVEL": "baseline"])
        #expect(fast.status == 0, "\(fast.stderr)")
        #expect(baseline.status == 0, "\(baseline.stderr)")
        #expect(!fast.stdout.isEmpty)
        #expect(baseline.stdout == fast.stdout)
    }

    @Test("--compute-type int8 transcribes with quantized weights; an unknown compute type is a usage error")
    func computeType() throws {
        let int8 = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--model", "tiny.en", "--compute-type", "int8", "-q"])
        #expect(int8.status == 0, "\(int8.stderr)")
        #expect(WordErrorRate.percent(reference: "Ever tried. Ever failed. No matter. Try again. Fail again. Fail better.", hypothesis: int8.stdout) == 0)
        let wrong = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--compute-type", "int4"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("float32") && wrong.stderr.contains("int8") && wrong.stderr.contains("auto"))
    }

    @Test("transcribes an MP3 and the audio track of an MP4 video")
    func transcribesMediaFiles() throws {
        let mp3 = try CLI.run(["transcribe", CLI.media("beckett.mp3"), "--model", "tiny.en", "--beam-size", "1", "-q"])
        #expect(mp3.status == 0, "\(mp3.stderr)")
        // One segment here (the WAV original gives four): faster-whisper segments this MP3 the same way.
        #expect(mp3.stdout == "Ever tried, ever failed. No matter, try again. Fail again. Fail better.\n")

        let video = try CLI.run(["transcribe", CLI.media("endgame_nagg_nell.mp4"), "--model", "tiny.en", "--beam-size", "1", "-q"])
        #expect(video.status == 0, "\(video.stderr)")
        #expect(video.stdout.hasPrefix("Do you hear me?"))
        #expect(video.stdout.contains("fetched you from that ditch?"))
    }

    @Test("a video without sound is an error that says so")
    func silentVideo() throws {
        let result = try CLI.run(["transcribe", CLI.media("silent_video.mp4"), "--model", "tiny.en"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("silent_video.mp4 has no audio track."))
        #expect(result.stderr.contains("Its streams are: video; none of them is audio."))
        #expect(result.stderr.contains("hint:"))
    }

    @Test("writes SRT subtitles into the output folder")
    func writesSubtitles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aural-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CLI.run([
            "transcribe", CLI.audio("beckett.wav"), "-m", "tiny.en", "--beam-size", "1", "--format", "srt", "--output-dir", folder.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let srt = try String(contentsOf: folder.appendingPathComponent("beckett.srt"), encoding: .utf8)
        #expect(srt.hasPrefix("1\n00:00:00,000 --> 00:00:"))
        #expect(srt.contains("\n2\n"))
        #expect(srt.contains("Fail better."))
    }

    @Test("JSON carries the language, segments and words with timings")
    func writesJSON() throws {
        let result = try CLI.run([
            "transcribe", CLI.audio("beckett.wav"), "--model", "base", "--beam-size", "1", "--format", "json", "--word-timestamps",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["language"] as? String == "en")
        #expect((json["language_probability"] as? Double ?? 0) > 0.9)
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(!segments.isEmpty)
        let words = segments.flatMap { ($0["words"] as? [[String: Any]]) ?? [] }
        #expect(words.count >= 10)
        let starts = words.compactMap { $0["start"] as? Double }
        #expect(starts == starts.sorted())
        #expect((words.last?["end"] as? Double ?? 0) <= 10.5)
        let timings = try #require(json["timings"] as? [String: Double])
        #expect((timings["model_load_seconds"] ?? 0) > 0)
        #expect((timings["transcription_seconds"] ?? 0) > 0)
    }

    @Test("--help shows the options")
    func help() throws {
        let result = try CLI.run(["transcribe", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout == (try CLI.snapshot("transcribe-help.txt")))
    }

    @Test("an unknown option is a usage error with a suggestion")
    func unknownOption() throws {
        let result = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--fromat", "srt"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--format"))
    }

    @Test("a missing file, a non-audio file and an uninstalled model give clear errors")
    func errors() throws {
        let missing = try CLI.run(["transcribe", "/nonexistent/audio.wav", "-m", "tiny.en"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("error: /nonexistent/audio.wav"))
        #expect(missing.stderr.contains("hint:"))

        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-audio-\(UUID().uuidString).wav")
        try Data("hello, this is not a WAV file at all".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        let notAudio = try CLI.run(["transcribe", text.path, "-m", "tiny.en"])
        #expect(notAudio.status == 1)
        #expect(notAudio.stderr.contains("hint:"))

        let noModel = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--model", "large-v9"])
        #expect(noModel.status == 1)
        #expect(noModel.stderr.contains("The model \"large-v9\" is not installed."))
        #expect(noModel.stderr.contains("hint: Install it with `aural models install large-v9`"))

        // A model folder given by path is checked as an installed one is: what is missing is named.
        let partial = FileManager.default.temporaryDirectory.appendingPathComponent("partial-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: partial) }
        try FileManager.default.copyItem(
            at: Fixtures.modelFolder("tiny.en").appendingPathComponent("config.json"), to: partial.appendingPathComponent("config.json"))
        let incomplete = try CLI.run(["transcribe", CLI.audio("beckett.wav"), "--model", partial.path])
        #expect(incomplete.status == 1)
        #expect(incomplete.stderr.contains("is incomplete."))
        #expect(incomplete.stderr.contains("model.bin is missing; tokenizer.json is missing; vocabulary.txt is missing."))
        #expect(incomplete.stderr.contains("hint: Add the missing files"))
    }

    @Test("an unknown command suggests the closest one")
    func unknownCommand() throws {
        let result = try CLI.run(["transcrib"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("did you mean 'transcribe'?"))
    }
}
