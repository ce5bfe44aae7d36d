@testable import AuralVAD
import CKernels
import Foundation
import Testing
import TestSupport

@Suite("SileroVAD", .heavyWork, .requiresVAD)
struct SileroVADTests {
    // Why 1e-4 holds: both sides compute in float32 with the same weights; they differ only in the order of the sums
    // (ONNX Runtime's MLAS against CKernels' 8-lane FMA dot products, up to 387 terms) and in exp, tanh and sqrt
    // (CKernels' polynomial exp, within 2 ulps), which moves each value by a few float32 ulps (1e-7 relative). The LSTM's forget gate is below 1, so an error carried
    // in the state shrinks from chunk to chunk instead of growing, and the final sigmoid's slope is at most 1/4.
    // Measured (2026-12-01, AVX-512 kernels): at most 1.1e-6 (beckett), 4.4e-6 (endgame), 1.1e-6 (two_cities), so
    // 1e-4 leaves a margin of 20 and still catches any wrong weight, tap or gate (those move values by 1e-2 or more).
    @Test("matches ONNX Runtime's probabilities within 1e-4", arguments: VADFixtures.recordings)
    func probabilities(recording: String) throws {
        let vad = try #require(VADFixtures.vad)
        let golden = try VADFixtures.golden(recording)
        let samples = try Fixtures.samples(recording)
        #expect(samples.count == golden.samples)
        let ours = vad.probabilities(for: samples)
        try #require(ours.count == golden.probabilities.count)
        let worst = zip(ours, golden.probabilities).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-4, "largest difference \(worst)")
    }

    @Test("every kernel build this CPU runs (baseline, AVX2, AVX-512) matches ONNX Runtime within 1e-4")
    func kernelBuilds() throws {
        let vad = try #require(VADFixtures.vad)
        let golden = try VADFixtures.golden("endgame_nagg_nell.wav")
        let samples = try Fixtures.samples("endgame_nagg_nell.wav")
        for level in [CK_LEVEL_BASELINE, CK_LEVEL_AVX2, CK_LEVEL_AVX512] where Int32(level) <= VADKernels.supportedLevel {
            var stream = SileroVAD.Stream(weights: vad.weights, kernels: VADKernels(level: Int32(level)))
            let ours = stream.append(samples) + stream.finish()
            let worst = zip(ours, golden.probabilities).map { abs($0 - $1) }.max() ?? 1
            #expect(ours.count == golden.probabilities.count && worst <= 1e-4, "level \(level): largest difference \(worst)")
        }
    }

    @Test("gives the reference's speech segments from its own probabilities", arguments: VADFixtures.recordings)
    func segments(recording: String) throws {
        let vad = try #require(VADFixtures.vad)
        let golden = try VADFixtures.golden(recording)
        let ours = vad.probabilities(for: try Fixtures.samples(recording))
        #expect(golden.segments.count == 5)
        for (name, set) in golden.segments.sorted(by: { $0.key < $1.key }) {
            let segments = SpeechSegments.detect(probabilities: ours, sampleCount: golden.samples, options: set.options.segmentOptions)
            let expected = set.speeches.map { $0.start..<$0.end }
            #expect(segments == expected, "option set \(name)")
        }
    }

    @Test("streaming in pieces of any size gives the batch probabilities")
    func streaming() throws {
        let vad = try #require(VADFixtures.vad)
        let samples = try Fixtures.samples("beckett.wav")
        let batch = vad.probabilities(for: samples)
        for pieceSizes in [[1], [7], [333], [511], [513], [4097], [1, 1000, 2, 511, 64, 9999]] {
            var stream = vad.stream()
            var streamed: [Float] = []
            var position = 0, turn = 0
            while position < samples.count {
                let size = min(pieceSizes[turn % pieceSizes.count], samples.count - position)
                streamed += stream.append(samples[position..<(position + size)])
                #expect(stream.chunkCount == streamed.count)
                position += size
                turn += 1
            }
            streamed += stream.finish()
            #expect(streamed == batch, "pieces of \(pieceSizes)")
        }
    }

    @Test("reset starts over as a new stream would")
    func reset() throws {
        let vad = try #require(VADFixtures.vad)
        let samples = Array(try Fixtures.samples("beckett.wav").prefix(16_000))
        var stream = vad.stream()
        _ = stream.append(samples.prefix(5_000))
        stream.reset()
        #expect(stream.chunkCount == 0 && stream.pendingSampleCount == 0)
        var fresh = vad.stream()
        #expect(stream.append(samples) == fresh.append(samples))
    }

    @Test("silence and empty input give low or no probabilities")
    func silence() throws {
        let vad = try #require(VADFixtures.vad)
        #expect(vad.probabilities(for: []).isEmpty)
        let probabilities = vad.probabilities(for: [Float](repeating: 0, count: 16_000))
        #expect(probabilities.count == 32)
        #expect(probabilities.allSatisfy { $0 < 0.1 })
        #expect(SpeechSegments.detect(probabilities: probabilities, sampleCount: 16_000).isEmpty)
    }
}

@Suite("SpeechSegmenter", .heavyWork, .requiresVAD)
struct SpeechSegmenterTests {
    @Test("its events are the batch segments, chunk by chunk", arguments: VADFixtures.recordings)
    func matchesBatch(recording: String) throws {
        let vad = try #require(VADFixtures.vad)
        let golden = try VADFixtures.golden(recording)
        let probabilities = vad.probabilities(for: try Fixtures.samples(recording))
        for name in ["default", "fasterWhisper", "sensitive"] {
            let options = try #require(golden.segments[name]).options.segmentOptions
            var segmenter = SpeechSegmenter(options: options)
            var events: [SpeechSegmenter.Event] = []
            for (i, probability) in probabilities.enumerated() {
                let new = segmenter.process(probability)
                for case .ended(let sample) in new { #expect(sample <= SileroVAD.chunkSize * (i + 1), "an end is never in the future") }
                events += new
            }
            events += segmenter.finish(sampleCount: golden.samples)
            var ranges: [Range<Int>] = []
            var open: Int?
            for event in events {
                switch event {
                case .started(let sample):
                    #expect(open == nil)
                    open = sample
                case .ended(let sample):
                    ranges.append(try #require(open)..<sample)
                    open = nil
                }
            }
            #expect(ranges == golden.segments[name]!.speeches.map { $0.start..<$0.end }, "option set \(name)")
        }
    }
}
