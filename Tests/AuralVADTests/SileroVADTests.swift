import AuralVAD
import Foundation
import Testing
import TestSupport

@Suite("SileroVAD", .requiresVAD)
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
