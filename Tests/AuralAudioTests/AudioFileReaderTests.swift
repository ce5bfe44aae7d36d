import AuralAudio
import Foundation
import TestSupport
import Testing

@Suite("AudioFileReader", .heavyWork)
struct AudioFileReaderTests {
    /// The files `scripts/setup` encodes from the recordings, one per container/codec the issue lists.
    static let mediaFiles = [
        "two_cities.flac", "beckett.mp3", "endgame_nagg_nell.opus", "two_cities.m4a", "beckett.webm",
        "endgame_nagg_nell.mp4", "beckett.mkv",
    ]

    /// faster-whisper's `decode_audio` of a media file, from `scripts/make-media-goldens`.
    struct DecodedGolden: Decodable {
        let count: Int
        let sum: Int64
        let sumOfSquares: Int64
        let weightedSum: Int64
        let samplesAt: [String: Int64]

        static func load(_ file: String) throws -> DecodedGolden {
            struct Golden: Decodable { let decoded: DecodedGolden }
            let url = Fixtures.goldenDirectory.appendingPathComponent("tiny.en-media-\(file)-greedy-nowords.json")
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(Golden.self, from: Data(contentsOf: url)).decoded
        }
    }

    /// The formats whose decoders give the same bits in Debian's FFmpeg 5.1 and in the FFmpeg 8.0 PyAV bundles.
    static let bitExactFiles = ["two_cities.flac", "beckett.mp3"]
    /// The formats whose float decoders (Opus, AAC, Vorbis) round differently in FFmpeg 5.1 and 8.0: up to
    /// 1.8e-7 before quantisation (measured with PyAV against Debian's ffmpeg on these files).
    static let floatDecoderFiles = ["endgame_nagg_nell.opus", "two_cities.m4a", "endgame_nagg_nell.mp4", "beckett.mkv"]

    @Test("leaves FFmpeg's log alone unless asked to quiet it, and decodes the same either way",
          .requiresFixtures(media: ["beckett.mp3", "endgame_nagg_nell.opus"]))
    func quietingFFmpegIsOptIn() throws {
        func decode(_ file: String) throws -> [Float] {
            let reader = try AudioFileReader(url: Fixtures.media(file))
            var samples: [Float] = []
            while let chunk = try reader.read() { samples += chunk }
            return samples
        }
        let loud = try ["beckett.mp3", "endgame_nagg_nell.opus"].map(decode)
        #expect(!AudioFileReader.quietsFFmpegLog, "opening and decoding files did not touch FFmpeg's log level")
        AudioFileReader.quietsFFmpegLog = true
        defer { AudioFileReader.quietsFFmpegLog = false }
        #expect(AudioFileReader.quietsFFmpegLog)
        let quiet = try ["beckett.mp3", "endgame_nagg_nell.opus"].map(decode)
        #expect(quiet == loud)
        #expect(quiet.allSatisfy { $0.count > 16_000 })
    }

    @Test("decodes each format bit-identical to faster-whisper's decode_audio", arguments: bitExactFiles)
    func matchesFasterWhisper(file: String) throws {
        let golden = try DecodedGolden.load(file)
        let integers = try AudioFileLoader.loadMono16k(url: Fixtures.media(file)).map { Int64(($0 * 32_768).rounded()) }
        try #require(integers.count == golden.count)
        #expect(integers.reduce(0, +) == golden.sum)
        #expect(integers.reduce(0) { $0 + $1 * $1 } == golden.sumOfSquares)
        #expect(integers.enumerated().reduce(Int64(0)) { $0 + Int64($1.offset + 1) * $1.element } == golden.weightedSum)
        for (index, value) in golden.samplesAt {
            #expect(integers[Int(index)!] == value, "sample \(index)")
        }
    }

    /// FFmpeg 8.0's Opus, AAC and Vorbis decoders round a few float operations differently from 5.1's, so
    /// some samples land one 16-bit step apart; the count and the signal are otherwise the same.
    @Test("decodes Opus, AAC and Vorbis within one 16-bit step of faster-whisper's decode_audio", arguments: floatDecoderFiles)
    func floatDecodersAreWithinOneStep(file: String) throws {
        let golden = try DecodedGolden.load(file)
        let integers = try AudioFileLoader.loadMono16k(url: Fixtures.media(file)).map { Int64(($0 * 32_768).rounded()) }
        try #require(integers.count == golden.count)
        let sumOfSquares = integers.reduce(0) { $0 + $1 * $1 }
        #expect(abs(Double(sumOfSquares - golden.sumOfSquares)) / Double(golden.sumOfSquares) < 1e-5)
        #expect(abs(integers.reduce(0, +) - golden.sum) <= Int64(golden.count) / 1_000)
        for (index, value) in golden.samplesAt {
            #expect(abs(integers[Int(index)!] - value) <= 1, "sample \(index)")
        }
    }

    /// Debian's FFmpeg 5.1 drops the whole Opus pre-skip in WebM, giving exactly the original recording's
    /// length (159,414 samples); the FFmpeg 8.0 in PyAV keeps 208 samples at 48 kHz (69 at 16 kHz) of it.
    @Test("decodes WebM/Opus to the original length, 69 samples shorter than faster-whisper's")
    func webmPreSkip() throws {
        let golden = try DecodedGolden.load("beckett.webm")
        let samples = try AudioFileLoader.loadMono16k(url: Fixtures.media("beckett.webm"))
        #expect(samples.count == golden.count - 69)
        #expect(samples.count == (try AudioFileLoader.loadMono16k(url: Fixtures.audio("beckett.wav"))).count)
    }

    /// A file and the channel count of its audio.
    struct ToolCase: CustomTestStringConvertible, Sendable {
        let url: URL
        let channels: Int
        var testDescription: String { url.lastPathComponent }
    }

    static let toolCases: [ToolCase] = [
        ToolCase(url: Fixtures.audio("two_cities.wav"), channels: 1),
        ToolCase(url: Fixtures.audio("endgame_nagg_nell.wav"), channels: 1),
        ToolCase(url: Fixtures.media("two_cities.flac"), channels: 1),
        ToolCase(url: Fixtures.media("beckett.mp3"), channels: 2),
        ToolCase(url: Fixtures.media("endgame_nagg_nell.opus"), channels: 1),
        ToolCase(url: Fixtures.media("two_cities.m4a"), channels: 1),
        ToolCase(url: Fixtures.media("beckett.webm"), channels: 1),
        ToolCase(url: Fixtures.media("endgame_nagg_nell.mp4"), channels: 2),
        ToolCase(url: Fixtures.media("beckett.mkv"), channels: 2),
    ]

    /// Compares with `ffmpeg -i FILE -ac 1 -ar 16000 -f f32le -` (Debian's FFmpeg 5.1 tool). Two differences
    /// are by design and are taken out before comparing sample by sample:
    /// - ours is 16-bit (faster-whisper's path: s16 output, so clipped to -1..<1 and rounded); ffmpeg's
    ///   float output is neither;
    /// - for float output libswresample does not normalise its downmix matrix, so ffmpeg's stereo-to-mono
    ///   is (L + R) / √2 where the s16 path's is (L + R) / 2: a gain of √2 on stereo files.
    /// What remains is at most one 16-bit step on every sample.
    @Test("matches ffmpeg -ac 1 -ar 16000 -f f32le within one 16-bit step, gain and rounding aside", arguments: toolCases)
    func matchesFFmpegTool(_ testCase: ToolCase) throws {
        let ours = try AudioFileLoader.loadMono16k(url: testCase.url)
        let reference = try Self.ffmpegMono16k(testCase.url)
        #expect(abs(ours.count - reference.count) <= 1, "\(ours.count) samples against ffmpeg's \(reference.count)")
        let count = min(ours.count, reference.count)
        var dot = 0.0, ourEnergy = 0.0, referenceEnergy = 0.0
        for i in 0..<count {
            dot += Double(ours[i]) * Double(reference[i])
            ourEnergy += Double(ours[i]) * Double(ours[i])
            referenceEnergy += Double(reference[i]) * Double(reference[i])
        }
        let correlation = dot / (ourEnergy * referenceEnergy).squareRoot()
        #expect(correlation > 0.999_999, "correlation \(correlation)")
        let expectedGain = testCase.channels == 1 ? 1 : 1 / 2.0.squareRoot()
        let gain = dot / referenceEnergy
        #expect(abs(gain - expectedGain) < 1e-3, "least-squares gain \(gain)")

        var largestStep = 0.0
        for i in 0..<count {
            let scaled = min(max((Double(reference[i]) * expectedGain * 32_768).rounded(), -32_768), 32_767)
            largestStep = max(largestStep, abs(Double(ours[i]) * 32_768 - scaled))
        }
        #expect(largestStep <= 1, "largest difference \(largestStep) steps of 1/32768")
    }

    @Test("knows the duration before decoding, within 50 ms of the decoded length", arguments: mediaFiles)
    func durationUpFront(file: String) throws {
        let reader = try AudioFileReader(url: Fixtures.media(file))
        let duration = try #require(reader.duration)
        var count = 0
        while let chunk = try reader.read() { count += chunk.count }
        #expect(abs(duration - Double(count) / 16_000) < 0.05, "container says \(duration) s, decoded \(Double(count) / 16_000) s")
    }

    @Test("returns whole chunks but the last, and the same samples whatever the chunk size", arguments: ["two_cities.m4a", "beckett.wav"])
    func chunking(file: String) throws {
        let url = file.hasSuffix(".wav") ? Fixtures.audio(file) : Fixtures.media(file)
        let whole = try AudioFileLoader.loadMono16k(url: url)
        for chunkSize in [1_000, 16_000, 77_777] {
            let reader = try AudioFileReader(url: url, chunkSampleCount: chunkSize)
            var chunks: [[Float]] = []
            while let chunk = try reader.read() { chunks.append(chunk) }
            #expect(chunks.dropLast().allSatisfy { $0.count == chunkSize })
            #expect(chunks.last.map { (1...chunkSize).contains($0.count) } == true)
            #expect(chunks.flatMap { $0 } == whole)
            #expect(try reader.read() == nil, "stays at the end")
        }
    }

    @Test("two readers of one file, interleaved, give the same samples")
    func twoPasses() throws {
        let url = Fixtures.media("endgame_nagg_nell.opus")
        let first = try AudioFileReader(url: url, chunkSampleCount: 48_000)
        let second = try AudioFileReader(url: url, chunkSampleCount: 48_000)
        var chunks = 0
        while let a = try first.read() {
            #expect(try second.read() == a)
            chunks += 1
        }
        #expect(try second.read() == nil)
        #expect(chunks == 10)
    }

    @Test("reads the audio track of a video and ignores its pictures")
    func videoAudioTrack() throws {
        let reader = try AudioFileReader(url: Fixtures.media("endgame_nagg_nell.mp4"))
        let samples = try AudioFileLoader.loadMono16k(url: reader.url)
        #expect(abs(Double(samples.count) / 16_000 - 28.3) < 0.1)
    }

    // MARK: - Helpers

    /// What the ffmpeg tool makes of `url`: 16 kHz mono 32-bit float.
    static func ffmpegMono16k(_ url: URL) throws -> [Float] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-i", url.path, "-ac", "1", "-ar", "16000", "-f", "f32le", "-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        // Foundation's waitUntilExit can miss the exit while other tests spawn processes, and then waits forever.
        try #require(process.waitForExit() == 0, "ffmpeg failed on \(url.path); is it installed (scripts/setup)?")
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

// On the heavy-work lane: FFmpeg probing damaged files takes up to a second a test, and the leak check 5,000 opens.
// The time limit, which catches a decoder that hangs, allows for the wait for a lane thread.
/// Damaged, cut-off, empty and foreign files: each gives a clear `AudioSourceError` or the audio that is
/// there, never a crash or a hang.
@Suite("AudioFileReader errors", .heavyWork, .timeLimit(.minutes(10)))
struct AudioFileReaderErrorTests {
    /// Reads every chunk of `url`.
    static func readAll(_ url: URL) throws -> [Float] {
        let reader = try AudioFileReader(url: url)
        var samples: [Float] = []
        while let chunk = try reader.read() { samples += chunk }
        return samples
    }

    /// `count` bytes from a fixed linear congruential generator, the same on every run.
    static func noise(count: Int, seed: UInt64 = 12_345) -> Data {
        var state = seed
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    static func prefix(of file: String, fraction: Double) throws -> Data {
        let bytes = try Data(contentsOf: Fixtures.media(file))
        return bytes.prefix(Int(Double(bytes.count) * fraction))
    }

    @Test("a missing file")
    func missing() {
        let path = "/nonexistent/aural/talk.m4a"
        #expect(throws: AudioSourceError.fileNotFound(path: path)) { try AudioFileReader(url: URL(fileURLWithPath: path)) }
    }

    @Test("a directory")
    func directory() {
        let url = FileManager.default.temporaryDirectory
        #expect(throws: AudioSourceError.unreadableFile(path: url.path, reason: "The path is a directory.")) {
            try AudioFileReader(url: url)
        }
    }

    @Test("an empty file named .mp3")
    func empty() throws {
        try Fixtures.withTemporaryFile(containing: Data(), extension: "mp3") { url in
            #expect(throws: AudioSourceError.emptyFile(path: url.path)) { try Self.readAll(url) }
        }
    }

    @Test("random bytes named .mp3")
    func randomBytesAsMP3() throws {
        try Fixtures.withTemporaryFile(containing: Self.noise(count: 100_000), extension: "mp3") { url in
            #expect {
                try Self.readAll(url)
            } throws: { error in
                switch error as? AudioSourceError {
                case .corruptFile(url.path, let reason), .notAudio(url.path, let reason): return !reason.isEmpty
                default: return false
                }
            }
        }
    }

    @Test("random bytes with no name hint", arguments: ["bin", "m4a", "ogg", "webm"])
    func randomBytes(extension: String) throws {
        try Fixtures.withTemporaryFile(containing: Self.noise(count: 50_000, seed: 7), extension: `extension`) { url in
            #expect(throws: AudioSourceError.self) { try Self.readAll(url) }
        }
    }

    @Test("a text file")
    func text() throws {
        let bytes = Data(String(repeating: "It was the best of times, it was the worst of times.\n", count: 50).utf8)
        try Fixtures.withTemporaryFile(containing: bytes, extension: "txt") { url in
            #expect {
                try Self.readAll(url)
            } throws: { error in
                switch error as? AudioSourceError {
                case .notAudio(url.path, _): return true
                // FFmpeg's "tty" demuxer takes .txt files as ANSI art: a video stream.
                case .noAudioTrack(url.path, let streams): return streams == ["video"]
                default: return false
                }
            }
        }
    }

    @Test("failed opens free what FFmpeg had opened", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/statm")))
    func failedOpensDoNotLeak() throws {
        let url = Fixtures.media("silent_video.mp4")  // fails after the container and its streams are read
        func attempts(_ count: Int) {
            for _ in 0..<count { _ = try? AudioFileReader(url: url) }
        }
        attempts(50)
        // Other suites run in this process at the same time and move its resident size by tens of MiB either way (up
        // to 134 MiB in a round, and in one CI run over 70 MiB in each of five rounds while the live-replay suites
        // grew their threads' heaps), so the opens run in rounds of 1,000: the leak this guards against kept 280 KiB
        // per failed open, 273 MiB in every round, well above that noise. Alone, a round grows by less than 1 MiB.
        var growths: [Int] = []
        for _ in 0..<5 {
            let before = try Self.residentBytes()
            attempts(1_000)
            growths.append(try Self.residentBytes() - before)
        }
        #expect(growths.min()! < 128 << 20, "resident memory grew in every round of 1,000 failed opens: \(growths.map { $0 >> 10 }) KiB")
    }

    /// Resident memory of this process, from /proc/self/statm.
    static func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return Int(fields[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("a video without sound")
    func silentVideo() {
        let url = Fixtures.media("silent_video.mp4")
        #expect(throws: AudioSourceError.noAudioTrack(path: url.path, streams: ["video"])) { try AudioFileReader(url: url) }
        let error = AudioSourceError.noAudioTrack(path: url.path, streams: ["video"])
        #expect(error.failureReason == "Its streams are: video; none of them is audio.")
    }

    @Test("an M4A cut in half (its index is at the end)", arguments: [0.5, 0.99, 0.01])
    func truncatedM4A(fraction: Double) throws {
        try Fixtures.withTemporaryFile(containing: Self.prefix(of: "two_cities.m4a", fraction: fraction), extension: "m4a") { url in
            #expect {
                try Self.readAll(url)
            } throws: { error in
                guard case .corruptFile(url.path, let reason) = error as? AudioSourceError else { return false }
                return reason.contains("QuickTime / MOV")
            }
        }
    }

    @Test("an MP3 cut in half gives the audio up to the cut", arguments: [0.5, 0.25])
    func truncatedMP3(fraction: Double) throws {
        let whole = try AudioFileLoader.loadMono16k(url: Fixtures.media("beckett.mp3"))
        try Fixtures.withTemporaryFile(containing: Self.prefix(of: "beckett.mp3", fraction: fraction), extension: "mp3") { url in
            let samples = try Self.readAll(url)
            // Constant bitrate: the cut falls at `fraction` of the audio, give or take a frame (1,152 samples at 44.1 kHz).
            #expect(abs(Double(samples.count) - fraction * Double(whole.count)) < 1_000)
            // The audio before the cut is the same, but for the last frame the decoder could not overlap.
            let checked = samples.count - 1_000
            #expect(samples[..<checked] == whole[..<checked])
        }
    }

    @Test("an MP3 with a damaged middle decodes around the damage")
    func damagedMP3() throws {
        var bytes = try Data(contentsOf: Fixtures.media("beckett.mp3"))
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 8_000), with: Self.noise(count: 8_000, seed: 99))
        let whole = try AudioFileLoader.loadMono16k(url: Fixtures.media("beckett.mp3"))
        try Fixtures.withTemporaryFile(containing: bytes, extension: "mp3") { url in
            let samples = try Self.readAll(url)
            // 8 KB of a 96 kbit/s stream is about 0.7 s; most of the rest survives.
            #expect(Double(samples.count) > 0.8 * Double(whole.count))
            #expect(samples[..<16_000] == whole[..<16_000])
        }
    }

    @Test("a WebM cut in half gives the audio up to the cut")
    func truncatedWebM() throws {
        try Fixtures.withTemporaryFile(containing: Self.prefix(of: "beckett.webm", fraction: 0.5), extension: "webm") { url in
            let samples = try Self.readAll(url)
            #expect(samples.count > 50_000 && samples.count < 110_000)
        }
    }
}
