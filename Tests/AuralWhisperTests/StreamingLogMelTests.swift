import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

/// Reads an array in pieces whose lengths cycle through `sizes`, counting the readings it serves.
private struct UnevenReader: SampleReading {
    let samples: [Float]
    let sizes: [Int]
    var position = 0
    var turn = 0

    mutating func read() throws -> [Float]? {
        guard position < samples.count else { return nil }
        let end = min(samples.count, position + sizes[turn % sizes.count])
        turn += 1
        defer { position = end }
        return Array(samples[position..<end])
    }
}

@Suite("StreamingLogMel", .heavyWork)
struct StreamingLogMelTests {
    @Test("windows read in uneven pieces equal the whole spectrogram's", arguments: [[1, 7_919, 160_000], [480_000], [399, 401]])
    func windowsMatchWholeSpectrogram(pieceSizes: [Int]) throws {
        // Three recordings back to back: 82 s, so windows start past the first reading's buffer.
        let samples = try Fixtures.samples("two_cities.wav") + Fixtures.samples("endgame_nagg_nell.wav") + Fixtures.samples("beckett.wav")
        let logMel = LogMel(melCount: 80)
        let whole = logMel.spectrogram(samples)

        var first = UnevenReader(samples: samples, sizes: pieceSizes)
        let summary = try StreamingLogMel.scan(&first, logMel: logMel)
        #expect(summary.sampleCount == samples.count)
        #expect((summary.maximum + 4) / 4 == whole.values.max()!)

        let windows = MelWindows(reader: UnevenReader(samples: samples, sizes: pieceSizes), logMel: logMel, summary: summary)
        #expect(windows.frames == whole.frames)
        for start in [0, 2_345, 5_345, whole.frames - 1_000] {
            let streamed = try windows.window(start: start, count: 3_000)
            let expected = whole.window(start: start, count: 3_000)
            let worst = zip(streamed, expected).map { abs($0 - $1) }.max()!
            #expect(worst == 0, "window at frame \(start) differs by \(worst)")
        }
    }

    @Test("short audio, shorter than one frame's reach, matches too", arguments: [0, 1, 150, 399, 1_000])
    func shortAudio(count: Int) throws {
        let samples = (0..<count).map { Float(sin(Double($0) * 0.05)) * 0.3 }
        let logMel = LogMel(melCount: 80)
        let whole = logMel.spectrogram(samples)
        var reader = UnevenReader(samples: samples, sizes: [7])
        let summary = try StreamingLogMel.scan(&reader, logMel: logMel)
        let windows = MelWindows(reader: UnevenReader(samples: samples, sizes: [7]), logMel: logMel, summary: summary)
        #expect(try windows.window(start: 0, count: 3_000) == whole.window(start: 0, count: 3_000))
    }

    @Test("a second reading that differs from the first is an error, not a wrong transcript")
    func changedAudio() throws {
        let logMel = LogMel(melCount: 80)
        let samples = [Float](repeating: 0.1, count: 100_000)
        var reader = UnevenReader(samples: samples, sizes: [16_000])
        let summary = try StreamingLogMel.scan(&reader, logMel: logMel)
        let shorter = MelWindows(reader: UnevenReader(samples: Array(samples.prefix(50_000)), sizes: [16_000]), logMel: logMel, summary: summary)
        #expect(throws: TranscriptionError.self) { try shorter.window(start: 0, count: 3_000) }
    }

    @Test("a reading with a NaN sample names its position")
    func notFinite() throws {
        var samples = [Float](repeating: 0.1, count: 50_000)
        samples[40_001] = .nan
        var reader = UnevenReader(samples: samples, sizes: [16_000])
        #expect(throws: TranscriptionError.invalidAudio(reason: "sample 40001 is nan, not a finite number")) {
            try StreamingLogMel.scan(&reader, logMel: LogMel(melCount: 80))
        }
    }
}
