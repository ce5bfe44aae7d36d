import AuralAudio
import Foundation
import TestSupport
import Testing

@Suite("AudioFileDecoder", .heavyWork)
struct AudioFileDecoderTests {
    /// What Debian's `ffprobe` 5.1 says of a file's first audio stream.
    struct Probe: CustomTestStringConvertible, Sendable {
        let file: String
        /// `stream=sample_rate`
        let sampleRate: Int
        /// `stream=channels`
        let channels: Int
        /// `stream=duration_ts` in `stream=time_base`, as frames at the sample rate (rounded down); nil for "N/A".
        let statedFrames: Int?
        /// The sum of `frame=nb_samples` over the stream: what the decoder gives.
        let decodedFrames: Int

        var testDescription: String { file }

        /// The frames a reader gets: the decoder's, cut at the stated length.
        var readableFrames: Int { min(statedFrames ?? decodedFrames, decodedFrames) }
    }

    /// From `ffprobe -v error -select_streams a:0 -show_entries stream=sample_rate,channels,time_base,duration_ts` and
    /// `-show_entries frame=nb_samples` (summed) on each file.
    static let probes = [
        // time_base 1/48000, duration_ts 2129958
        Probe(file: "two_cities.flac", sampleRate: 48_000, channels: 1, statedFrames: 2_129_958, decodedFrames: 2_129_958),
        // time_base 1/14112000, duration_ts 141189384: 441216.8 frames
        Probe(file: "beckett.mp3", sampleRate: 44_100, channels: 2, statedFrames: 441_216, decodedFrames: 441_216),
        // time_base 1/48000, duration_ts 1357620; FFmpeg 5.1's decoder gives 312 frames (the pre-skip) fewer
        Probe(file: "endgame_nagg_nell.opus", sampleRate: 48_000, channels: 1, statedFrames: 1_357_620, decodedFrames: 1_357_308),
        // time_base 1/48000, duration_ts 2129952; the decoder gives the AAC encoder's padding beyond it
        Probe(file: "two_cities.m4a", sampleRate: 48_000, channels: 1, statedFrames: 2_129_952, decodedFrames: 2_130_944),
        // Matroska states no stream duration
        Probe(file: "beckett.webm", sampleRate: 48_000, channels: 1, statedFrames: nil, decodedFrames: 478_242),
        // time_base 1/24000, duration_ts 678648
        Probe(file: "endgame_nagg_nell.mp4", sampleRate: 24_000, channels: 2, statedFrames: 678_648, decodedFrames: 678_912),
        Probe(file: "beckett.mkv", sampleRate: 32_000, channels: 2, statedFrames: nil, decodedFrames: 319_040),
    ]

    /// Every frame of `decoder` from its position on, read `chunk` frames at a time.
    static func readAll(_ decoder: AudioFileDecoder, chunk: Int = 10_000) throws -> [Float] {
        var samples: [Float] = []
        while let frames = try decoder.read(maximumFrames: chunk) {
            #expect(frames.count % decoder.channelCount == 0 && frames.count <= chunk * decoder.channelCount)
            samples += frames
        }
        return samples
    }

    @Test("reports each file's own rate, channel count and length as ffprobe does, and reads that many frames",
          .requiresFixtures(media: probes.map(\.file)), arguments: probes)
    func formatAndLength(_ probe: Probe) throws {
        let decoder = try AudioFileDecoder(url: Fixtures.media(probe.file))
        #expect(decoder.sampleRate == probe.sampleRate)
        #expect(decoder.channelCount == probe.channels)
        #expect(try decoder.frameCount == probe.statedFrames ?? probe.decodedFrames)
        let samples = try Self.readAll(decoder)
        #expect(samples.count == probe.readableFrames * probe.channels)
        #expect(try decoder.frameCount == probe.readableFrames, "the length after reading to the end")
        #expect(try decoder.read(maximumFrames: 1) == nil)
    }

    /// The ffmpeg tool converts the decoder's frames to interleaved `f32le` with libswresample too, and converts
    /// nothing else, so the bits must be the same up to the length this decoder stops at.
    @Test("gives the decoder's samples: the bits `ffmpeg -f f32le` writes", .requiresFixtures(media: probes.map(\.file)),
          arguments: probes)
    func matchesFFmpegTool(_ probe: Probe) throws {
        let ours = try Self.readAll(try AudioFileDecoder(url: Fixtures.media(probe.file)), chunk: 65_536)
        let tool = try Self.ffmpegNative(Fixtures.media(probe.file))
        #expect(tool.count == probe.decodedFrames * probe.channels, "the tool writes every decoded frame")
        let common = min(ours.count, tool.count)
        let first = (0..<common).first { ours[$0].bitPattern != tool[$0].bitPattern }
        #expect(first == nil, "first difference at sample \(first ?? 0)")
    }

    @Test("seeks exactly: a read after seek(toFrame: n) gives the frames a read from the start gives from n",
          .requiresFixtures(media: probes.map(\.file)), arguments: probes)
    func exactSeek(_ probe: Probe) throws {
        let url = Fixtures.media(probe.file)
        let whole = try Self.readAll(try AudioFileDecoder(url: url), chunk: 65_536)
        let channels = probe.channels
        let frames = whole.count / channels
        let decoder = try AudioFileDecoder(url: url)
        // Forwards from the start, back, forwards past a decoded chunk, back into the last read, and near the end.
        for (target, count) in [(12_345, 1_000), (1_000, 777), (frames / 2, 4_096), (frames / 2 + 10, 50), (frames - 100, 500)] {
            try decoder.seek(toFrame: target)
            let read = try #require(try decoder.read(maximumFrames: count), "frame \(target)")
            let expected = whole[(target * channels)..<(min(target + count, frames) * channels)]
            #expect(read == Array(expected), "\(count) frames from \(target)")
        }
        try decoder.seek(toFrame: frames)
        #expect(try decoder.read(maximumFrames: 10) == nil, "nothing at the end")
        try decoder.seek(toFrame: frames + 1_000)
        #expect(try decoder.read(maximumFrames: 10) == nil, "nothing past the end")
        try decoder.seek(toFrame: 0)
        #expect(try decoder.read(maximumFrames: 300) == Array(whole[..<(300 * channels)]), "back to the start")
    }

    @Test("reads the same frames in any chunk size", .requiresFixtures(media: ["beckett.mp3"]))
    func chunkSizes() throws {
        let url = Fixtures.media("beckett.mp3")
        let reference = try Self.readAll(try AudioFileDecoder(url: url), chunk: 1_000_000)
        #expect(try Self.readAll(try AudioFileDecoder(url: url), chunk: 7) == reference)
        #expect(try Self.readAll(try AudioFileDecoder(url: url), chunk: 1_153) == reference)
    }

    @Test("a missing file, a text file and a video without sound give AuralAudio's errors",
          .requiresFixtures(media: ["silent_video.mp4"]))
    func errors() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/decoder-test.flac")
        #expect(throws: AudioSourceError.fileNotFound(path: missing.path)) { try AudioFileDecoder(url: missing) }
        #expect {
            try AudioFileDecoder(url: Fixtures.media("silent_video.mp4"))
        } throws: { error in
            guard case .noAudioTrack = error as? AudioSourceError else { return false }
            return true
        }
        let text = Data(String(repeating: "Not a recording, a shopping list.\n", count: 100).utf8)
        try Fixtures.withTemporaryFile(containing: text, extension: "txt") { url in
            #expect {
                try AudioFileDecoder(url: url)
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

    /// What `ffmpeg -i FILE -f f32le` writes: every decoded frame, interleaved 32-bit float at the stream's own rate and
    /// channel count. Written to a file, not a pipe, which another test's process could inherit.
    static func ffmpegNative(_ url: URL) throws -> [Float] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("AuralAudioTests-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-i", url.path, "-f", "f32le", "-y", output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runWithDefaultSignals()
        // Foundation's waitUntilExit can miss the exit while other tests spawn processes, and then waits forever.
        try #require(process.waitForExit() == 0, "ffmpeg failed on \(url.path); is it installed (scripts/setup)?")
        return try Data(contentsOf: output).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
