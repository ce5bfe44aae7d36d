import AuralAudio
import AVFoundation
import TestSupport
import Testing

/// Decoding whole recordings holds a thread for seconds: the tests run on `HeavyWorkLane` (`.heavyWork`).
@Suite("AVAudioFile", .heavyWork)
struct AVAudioFileTests {
    /// Core Audio's four-character status codes, as Apple's constants spell them.
    static func code(_ text: String) -> Int { text.utf8.reduce(0) { $0 << 8 | Int($1) } }

    /// Reads the rest of `file` in buffers of `chunk` frames until a read gives 0 frames; returns channel 0.
    static func readAll(_ file: AVAudioFile, chunk: AVAudioFrameCount = 4_096) throws -> [Float] {
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: chunk))
        var samples: [Float] = []
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { return samples }
            samples += TestAudio.samples(buffer)
        }
    }

    @Test("a WAV file keeps its own rate and channel count, and reads the samples AuralAudio reads",
          .requiresFixtures(audio: ["two_cities.wav"]))
    func readsWAV() throws {
        let url = Fixtures.audio("two_cities.wav")
        let reference = try WAVFile(url: url)
        let file = try AVAudioFile(forReading: url)
        #expect(file.url == url)
        #expect(file.fileFormat == AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 1, interleaved: true))
        #expect(file.processingFormat == AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        #expect(file.length == AVAudioFramePosition(reference.frameCount))
        #expect(file.length == 2_129_958)  // 44.374125 s at 48 kHz
        let samples = try Self.readAll(file)
        #expect(samples == reference.interleavedSamples())
        #expect(file.framePosition == file.length)
    }

    @Test("at the end of the file a read gives 0 frames and does not throw", .requiresFixtures(audio: ["beckett.wav"]))
    func endOfFile() throws {
        let file = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length) + 10))
        try file.read(into: buffer)
        #expect(AVAudioFramePosition(buffer.frameLength) == file.length)
        try file.read(into: buffer)
        #expect(buffer.frameLength == 0)
        try file.read(into: buffer)
        #expect(buffer.frameLength == 0)
    }

    @Test("framePosition seeks, forwards and back; frameCount reads fewer frames than fit",
          .requiresFixtures(audio: ["endgame_nagg_nell.wav"]))
    func seeking() throws {
        let url = Fixtures.audio("endgame_nagg_nell.wav")
        let reference = try WAVFile(url: url).interleavedSamples()
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.sampleRate == 24_000)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 2_000))
        file.framePosition = 300_000
        try file.read(into: buffer, frameCount: 1_000)
        #expect(buffer.frameLength == 1_000)
        #expect(TestAudio.samples(buffer) == Array(reference[300_000..<301_000]))
        #expect(file.framePosition == 301_000)
        file.framePosition = 12
        try file.read(into: buffer)
        #expect(TestAudio.samples(buffer) == Array(reference[12..<2_012]))
        file.framePosition = file.length - 5
        try file.read(into: buffer)
        #expect(buffer.frameLength == 5)
    }

    @Test("a processing format of 16-bit integers gives the file's own integers back", .requiresFixtures(audio: ["beckett.wav"]))
    func int16Processing() throws {
        let url = Fixtures.audio("beckett.wav")
        let file = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(file.processingFormat.commonFormat == .pcmFormatInt16)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
        try file.read(into: buffer)
        let integers = Array(UnsafeBufferPointer(start: try #require(buffer.int16ChannelData)[0], count: Int(buffer.frameLength)))
        let reference = try WAVFile(url: url).interleavedSamples().map { Int16($0 * 32_768) }
        #expect(integers == reference)
    }

    /// Reads the rest of `file` in buffers of `chunk` frames until a read gives 0 frames; returns every channel,
    /// interleaved.
    static func readAllChannels(_ file: AVAudioFile, chunk: AVAudioFrameCount = 4_096) throws -> [Float] {
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: chunk))
        let channels = Int(file.processingFormat.channelCount)
        var samples: [Float] = []
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { return samples }
            let planes = (0..<channels).map { TestAudio.samples(buffer, channel: $0) }
            samples += (0..<Int(buffer.frameLength)).flatMap { frame in planes.map { $0[frame] } }
        }
    }

    @Test("an MP3 file reports its own rate and channels, 44.1 kHz stereo, and its length", .requiresFixtures(media: ["beckett.mp3"]))
    func mp3OwnFormat() throws {
        let file = try AVAudioFile(forReading: Fixtures.media("beckett.mp3"))
        let cdFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        #expect(file.fileFormat == cdFormat)
        #expect(file.processingFormat == cdFormat)
        #expect(file.length == 441_216)  // ffprobe: duration_ts 141189384 at 1/14112000 s, 441,216.8 frames at 44.1 kHz
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 500_000))
        try file.read(into: buffer)
        #expect(buffer.frameLength == 441_216)
        #expect(TestAudio.samples(buffer, channel: 0).contains { $0 != 0 } && TestAudio.samples(buffer, channel: 1).contains { $0 != 0 })
    }

    @Test("any file FFmpeg reads keeps its own rate and channels, and gives the samples AuralAudio's decoder gives",
          .requiresFixtures(media: ["two_cities.flac", "beckett.mp3", "endgame_nagg_nell.mp4", "beckett.mkv"]),
          arguments: ["two_cities.flac", "beckett.mp3", "endgame_nagg_nell.mp4", "beckett.mkv"])
    func readsCompressedFiles(_ name: String) throws {
        let url = Fixtures.media(name)
        let decoder = try AudioFileDecoder(url: url)
        var reference: [Float] = []
        while let frames = try decoder.read(maximumFrames: 65_536) { reference += frames }
        let channels = decoder.channelCount
        let file = try AVAudioFile(forReading: url)
        let own = try #require(AVAudioFormat(standardFormatWithSampleRate: Double(decoder.sampleRate), channels: AVAudioChannelCount(channels)))
        #expect(file.processingFormat == own)
        #expect(file.fileFormat == own)
        #expect(file.length == AVAudioFramePosition(reference.count / channels))
        #expect(try Self.readAllChannels(file, chunk: 10_000) == reference)
        // Seeking is exact, forwards and back.
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100))
        for position in [16_000, 3_000, 100_000] {
            file.framePosition = AVAudioFramePosition(position)
            try file.read(into: buffer)
            for channel in 0..<channels {
                let expected = stride(from: position * channels + channel, to: (position + 100) * channels, by: channels).map { reference[$0] }
                #expect(TestAudio.samples(buffer, channel: channel) == expected, "frame \(position), channel \(channel)")
            }
        }
    }

    @Test("a WAV file written from buffers reads back bit for bit", arguments: [
        (16, false, AVAudioChannelCount(1), 16_000.0), (32, true, 2, 44_100), (32, false, 1, 8_000), (64, true, 2, 22_050),
    ])
    func writeThenRead(bits: Int, isFloat: Bool, channels: AVAudioChannelCount, rate: Double) throws {
        let url = TestAudio.temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let settings: [String: Any] = [
            AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
            AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: isFloat,
        ]
        // Values every depth holds exactly: multiples of 1/32768 (and, in floats, values no integer holds).
        let left = (0..<5_000).map { Float(($0 * 7_919) % 65_536 - 32_768) / 32_768 }
        let right = left.map { isFloat ? $0 * 0.3 : -$0 }
        let planes = Array([left, right].prefix(Int(channels)))
        do {
            let file = try AVAudioFile(forWriting: url, settings: settings)
            #expect(file.processingFormat == AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels))
            #expect(file.fileFormat.settings[AVLinearPCMBitDepthKey] as? Int == bits)
            try file.write(from: TestAudio.buffer(file.processingFormat, channels: planes.map { Array($0[..<1_234]) }))
            try file.write(from: TestAudio.buffer(file.processingFormat, channels: planes.map { Array($0[1_234...]) }))
            #expect(file.length == 5_000)
            file.close()
        }
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.sampleRate == rate)
        #expect(file.fileFormat.channelCount == channels)
        #expect(file.length == 5_000)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 6_000))
        try file.read(into: buffer)
        for channel in 0..<Int(channels) {
            #expect(TestAudio.samples(buffer, channel: channel) == planes[channel], "channel \(channel)")
        }
        // AuralAudio (the reference WAV reader) reads the same file.
        let wav = try WAVFile(url: url)
        #expect(wav.frameCount == 5_000 && wav.channelCount == Int(channels) && wav.sampleRate == Int(rate))
    }

    @Test("24-bit integers are written rounded to 1/8388608")
    func twentyFourBits() throws {
        let url = TestAudio.temporaryURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let samples: [Float] = [0, 0.1, -0.1, 0.999_999, -1, 1]
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24])
        #expect(file.fileFormat.commonFormat == .otherFormat)
        try file.write(from: TestAudio.buffer(file.processingFormat, channels: [samples]))
        let read = try Self.readAll(try AVAudioFile(forReading: url))
        let expected = samples.map { Float(min(max(($0 * 8_388_608).rounded(), -8_388_608), 8_388_607)) / 8_388_608 }
        #expect(read == expected)
    }

    @Test("a file being written is a valid WAV file after every write", .requiresFixtures(audio: ["beckett.wav"]))
    func validWhileWriting() throws {
        let url = TestAudio.temporaryURL(extension: "caf")  // written as WAV whatever the name
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
        let writer = try AVAudioFile(forWriting: url, settings: source.fileFormat.settings)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: 16_000))
        var written: [Float] = []
        for _ in 0..<3 {
            try source.read(into: buffer)
            try writer.write(from: buffer)
            written += TestAudio.samples(buffer)
            // Another reader, meanwhile: the header already counts every frame written.
            let reader = try AVAudioFile(forReading: url)
            #expect(reader.length == AVAudioFramePosition(written.count))
            #expect(try Self.readAll(reader) == written)
            #expect(try AudioFileLoader.loadMono16k(url: url).count == written.count)  // FFmpeg's WAV demuxer agrees
        }
    }

    @Test("a missing file is error -43, naming the path and saying what to do")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/avfoundation-test.wav")
        let error = try #require(throws: NSError.self) { try AVAudioFile(forReading: url) }
        #expect(error.domain == "com.apple.coreaudio.avfaudio")
        #expect(error.code == -43)
        #expect(error.localizedDescription.contains(url.path))
        #expect(error.localizedRecoverySuggestion?.isEmpty == false)
        #expect(error.userInfo[NSUnderlyingErrorKey] as? AudioSourceError == .fileNotFound(path: url.path))
    }

    @Test("a damaged WAV file is 'dta?'; a file that is not audio, or a video without sound, is 'typ?'",
          .requiresFixtures(audio: ["beckett.wav"], media: ["silent_video.mp4"]))
    func unreadableFiles() throws {
        let cut = TestAudio.temporaryURL()
        let text = TestAudio.temporaryURL(extension: "txt")
        defer { [cut, text].forEach { try? FileManager.default.removeItem(at: $0) } }
        try Data(try Data(contentsOf: Fixtures.audio("beckett.wav")).prefix(30)).write(to: cut)  // inside the "fmt " chunk
        try Data(String(repeating: "Eggs, flour, milk: a shopping list, not a recording.\n", count: 50).utf8).write(to: text)

        let damaged = try #require(throws: NSError.self) { try AVAudioFile(forReading: cut) }
        #expect(damaged.code == Self.code("dta?"))
        #expect(damaged.localizedRecoverySuggestion?.isEmpty == false)
        let notAudio = try #require(throws: NSError.self) { try AVAudioFile(forReading: text) }
        #expect(notAudio.code == Self.code("typ?"))
        #expect(notAudio.localizedDescription.contains(text.path))  // "… is not an audio file" or "… has no audio track"
        let silent = try #require(throws: NSError.self) { try AVAudioFile(forReading: Fixtures.media("silent_video.mp4")) }
        #expect(silent.code == Self.code("typ?"))
        #expect(silent.localizedDescription.contains("no audio track"))
    }

    @Test("a path that cannot be written: -43 for a missing folder, 'prm?' for a folder itself")
    func unwritablePaths() throws {
        let settings: [String: Any] = [AVSampleRateKey: 16_000, AVNumberOfChannelsKey: 1]
        let missing = try #require(throws: NSError.self) {
            try AVAudioFile(forWriting: URL(fileURLWithPath: "/nonexistent-folder/out.wav"), settings: settings)
        }
        #expect(missing.code == -43)
        #expect(missing.localizedDescription.contains("folder does not exist"))
        #expect(missing.localizedRecoverySuggestion?.contains("Create the folder") == true)
        let folder = try #require(throws: NSError.self) {
            try AVAudioFile(forWriting: FileManager.default.temporaryDirectory, settings: settings)
        }
        #expect(folder.code == Self.code("prm?"))
    }

    @Test("settings for a compressed format are 'fmt?', saying that only linear PCM is written")
    func compressedSettings() throws {
        let url = TestAudio.temporaryURL(extension: "m4a")
        let error = try #require(throws: NSError.self) {
            try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: UInt32(0x6161_6320), AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])
        }
        #expect(error.code == Self.code("fmt?"))
        #expect(error.localizedFailureReason?.contains("'aac '") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("a buffer of another format is -50; a closed file is -38", .requiresFixtures(audio: ["beckett.wav"]))
    func misuse() throws {
        let file = try AVAudioFile(forReading: Fixtures.audio("beckett.wav"))
        let stereoFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 2))
        let stereo = try #require(AVAudioPCMBuffer(pcmFormat: stereoFormat, frameCapacity: 10))
        let wrong = try #require(throws: NSError.self) { try file.read(into: stereo) }
        #expect(wrong.code == -50)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 10))
        #expect(throws: NSError.self) { try file.read(into: buffer, frameCount: 11) }
        #expect(throws: NSError.self) { try file.write(from: buffer) }
        file.close()
        #expect(!file.isOpen)
        let closed = try #require(throws: NSError.self) { try file.read(into: buffer) }
        #expect(closed.code == -38)
    }
}
