import AuralAudio
import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

/// Each container and codec, decoded by `AudioFileReader` and transcribed by tiny.en (greedy), against
/// faster-whisper 1.2.1 on the same file (`scripts/make-media-goldens`). Lossy codecs change the audio, so
/// the text can differ from the WAV original's: each file has its own golden.
@Suite("Media files", .heavyWork)
struct MediaFileTests {
    static let files = [
        "two_cities.flac", "beckett.mp3", "endgame_nagg_nell.opus", "two_cities.m4a", "beckett.webm",
        "endgame_nagg_nell.mp4", "beckett.mkv",
    ]

    @Test("transcribes each format to faster-whisper's text on the same file", arguments: files)
    func transcribesLikeFasterWhisper(file: String) throws {
        let golden = try GoldenTranscript.load("tiny.en-media-\(file)-greedy-nowords")
        let samples = try AudioFileLoader.loadMono16k(url: Fixtures.repositoryRoot.appendingPathComponent("fixtures/\(golden.recording)"))
        let options = DecodingOptions(language: "en", beamSize: 1)
        let (_, segments) = try Transcriber(model: try Fixtures.model("tiny.en")).transcribe(samples, options: options)
        #expect(segments.map(\.text) == golden.segments.map(\.text))
        #expect(segments.map(\.tokens) == golden.segments.map(\.tokens))
        #expect(segments.map { ($0.start * 100).rounded() } == golden.segments.map { ($0.start * 100).rounded() })
        #expect(segments.map { ($0.end * 100).rounded() } == golden.segments.map { ($0.end * 100).rounded() })
    }

    @Test("a video's audio track transcribes with the reader driven chunk by chunk")
    func chunkedReader() throws {
        let golden = try GoldenTranscript.load("tiny.en-media-endgame_nagg_nell.mp4-greedy-nowords")
        let reader = try AudioFileReader(
            url: Fixtures.repositoryRoot.appendingPathComponent("fixtures/\(golden.recording)"), chunkSampleCount: 16_000)
        var samples: [Float] = []
        while let chunk = try reader.read() { samples += chunk }
        let (info, segments) = try Transcriber(model: try Fixtures.model("tiny.en"))
            .transcribe(samples, options: DecodingOptions(language: "en", beamSize: 1))
        #expect(abs(info.duration - (reader.duration ?? 0)) < 0.05)
        #expect(segments.map(\.text).joined() == golden.segments.map(\.text).joined())
    }
}
