import AuralAudio
import Foundation
import Testing

@Suite("FileSource", .timeLimit(.minutes(1)))
struct FileSourceTests {
    @Test("delivers the whole file as 16 kHz mono buffers with their start times", arguments: ["beckett.webm", "endgame_nagg_nell.mp4"])
    func deliversTheFile(file: String) async throws {
        let url = Fixtures.media(file)
        let source = FileSource(url: url, bufferDuration: 0.5)
        var buffers: [AudioBuffer] = []
        for try await buffer in try source.start() { buffers.append(buffer) }
        #expect(buffers.flatMap(\.samples) == (try AudioFileLoader.loadMono16k(url: url)))
        #expect(buffers.allSatisfy { $0.format == .whisper })
        #expect(buffers.dropLast().allSatisfy { $0.samples.count == 8_000 })
        var expectedStart = 0.0
        for buffer in buffers {
            #expect(buffer.startTime == expectedStart)
            expectedStart += buffer.duration
        }
    }

    @Test("stop() ends the stream early")
    func stopEndsEarly() async throws {
        let source = FileSource(url: Fixtures.media("two_cities.m4a"))
        var count = 0
        for try await _ in try source.start() {
            count += 1
            if count == 3 { source.stop() }
        }
        #expect(count == 3)
        source.stop()  // safe twice
    }

    @Test("stop() before start() is harmless, and start() again begins at the start")
    func restart() async throws {
        let source = FileSource(url: Fixtures.audio("beckett.wav"), bufferDuration: 2)
        source.stop()
        var first: [Float] = []
        for try await buffer in try source.start() {
            first = buffer.samples
            break
        }
        var again: AudioBuffer?
        for try await buffer in try source.start() {
            again = buffer
            break
        }
        #expect(again?.startTime == 0)
        #expect(again?.samples == first)
        #expect(first.count == 32_000)
    }

    @Test("a file that cannot be opened throws from start()")
    func startThrows() {
        let url = Fixtures.media("silent_video.mp4")
        #expect(throws: AudioSourceError.noAudioTrack(path: url.path, streams: ["video"])) { try FileSource(url: url).start() }
    }

    @Test("a decoding error comes through the stream")
    func errorThroughTheStream() async throws {
        // Random bytes named .mp3: FFmpeg opens them as MP3 by the name, then no frame decodes.
        var state: UInt64 = 42
        let bytes = Data((0..<100_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("FileSourceTests-\(UUID().uuidString).mp3")
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let stream = try FileSource(url: url).start()
        await #expect {
            for try await _ in stream {}
        } throws: { error in
            guard case .corruptFile(url.path, _) = error as? AudioSourceError else { return false }
            return true
        }
    }
}
