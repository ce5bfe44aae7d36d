import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("LogMelCache", .heavyWork)
struct LogMelCacheTests {
    /// The buffers a live session encodes, as (first sample, end sample) of the recording: growing by 0.5 s, trimmed
    /// at a frame boundary (a committed word's end), growing again past 30 s, trimmed off the frame grid.
    static func liveBuffers(length: Int) -> [(start: Int, end: Int)] {
        let step = 8_000
        var buffers: [(Int, Int)] = []
        for end in stride(from: step, through: 16 * 16_000, by: step) { buffers.append((0, end)) }
        let trimmed = 149_920  // 9.37 s
        for end in stride(from: 16 * 16_000 + step, through: min(length, trimmed + 31 * 16_000), by: step) {
            buffers.append((trimmed, end))
        }
        let offGrid = trimmed + 12_345
        for end in stride(from: offGrid + 20 * 16_000, through: length, by: step) { buffers.append((offGrid, end)) }
        return buffers
    }

    /// Values whose bits differ (and the length difference): a count, so that a failure does not print the arrays.
    static func differences(_ a: [Float], _ b: [Float]) -> Int {
        zip(a, b).count { $0.bitPattern != $1.bitPattern } + abs(a.count - b.count)
    }

    @Test("a growing and trimmed live buffer gives the whole computation's spectrogram bit for bit, computing only new frames")
    func growingBuffer() throws {
        // Exact: the cache must hand the encoder the same bits as `LogMel.spectrogram`, or live text would change.
        let recording = try Fixtures.samples("two_cities.wav")
        let logMel = LogMel(melCount: 80)
        let cache = LogMelCache()
        var reused = 0
        var previousStart = -1
        for (start, end) in Self.liveBuffers(length: recording.count) {
            let samples = Array(recording[start..<end])
            let cached = cache.spectrogram(samples, logMel: logMel)
            let whole = logMel.spectrogram(samples)
            #expect(cached.frames == whole.frames)
            #expect(Self.differences(cached.values, whole.values) == 0, "buffer \(start)..<\(end)")
            if start != previousStart {
                #expect(cache.reusedFrames == 0, "a moved start computes every frame")
            } else if samples.count >= 3 * LogMel.batchFrames * LogMel.hopLength {
                // All but the last batch or two are kept.
                #expect(cache.reusedFrames >= whole.frames - 2 * LogMel.batchFrames, "buffer \(start)..<\(end)")
            }
            reused += cache.reusedFrames
            previousStart = start
        }
        #expect(reused > 0)
    }

    @Test("silence appended to a buffer, then the real audio in its place, gives the whole computation's spectrogram")
    func appendedSilence() throws {
        let recording = try Fixtures.samples("two_cities.wav")
        let logMel = LogMel(melCount: 80)
        let cache = LogMelCache()
        let end = 12 * 16_000
        let buffers = [
            Array(recording[..<end]),
            Array(recording[..<end]) + [Float](repeating: 0, count: 4_800),
            Array(recording[..<(end + 8_000)]),
            Array(recording[..<(end - 40_000)]),
        ]
        for samples in buffers {
            let cached = cache.spectrogram(samples, logMel: logMel)
            #expect(Self.differences(cached.values, logMel.spectrogram(samples).values) == 0)
        }
    }

    @Test("a window encoded with the cache equals one encoded without it")
    func encodedWindow() throws {
        let model = try Fixtures.model("tiny.en")
        let decoder = WindowDecoder(model: model)
        let recording = try Fixtures.samples("two_cities.wav")
        let cache = LogMelCache()
        _ = try decoder.encode(Array(recording[..<(10 * 16_000)]), melCache: cache)
        let grown = Array(recording[..<(11 * 16_000)])
        let cached = try decoder.encode(grown, melCache: cache)
        #expect(cache.reusedFrames > 0)
        let plain = try decoder.encode(grown)
        #expect(cached.contentFrames == plain.contentFrames)
        #expect(Self.differences(cached.output.array, plain.output.array) == 0)
    }
}
