import Foundation
import Testing
import TestSupport
@testable import AuralWhisper

/// The encoder alone on one 30-second window, run by hand (skipped unless AURAL_ENCODER_BENCH names models); see
/// `scripts/encoder-bench`, which also times CTranslate2's encoder on the same features:
///
///     AURAL_ENCODER_BENCH=tiny.en,base AURAL_ENCODER_RUNS=7 \
///       .build/test/release/AuralKitPackageTests.xctest --testing-library swift-testing --filter EncoderBenchmark
///
/// For each model and compute type it encodes the first 30 s of two_cities.wav `AURAL_ENCODER_RUNS` times (after one
/// warm-up) on the whole worker pool and prints the median and the fastest wall time, one line per case.
@Suite("EncoderBenchmark")
struct EncoderBenchmark {
    static let models = ProcessInfo.processInfo.environment["AURAL_ENCODER_BENCH"]?.split(separator: ",").map(String.init)
    static let runs = Int(ProcessInfo.processInfo.environment["AURAL_ENCODER_RUNS"] ?? "") ?? 7

    @Test("times one 30-second encoder window", .enabled(if: models != nil))
    func encoderWindow() throws {
        let samples = Array(try Fixtures.samples("two_cities.wav").prefix(30 * 16_000))
        for name in try #require(Self.models) {
            for type in [ComputeType.float32, .int8] {
                let model = try WhisperModel(folder: Fixtures.modelFolder(name), computeType: type)
                let decoder = WindowDecoder(model: model)
                _ = try decoder.encode(samples)
                var times: [Double] = []
                for _ in 0..<Self.runs {
                    let started = Date()
                    _ = try decoder.encode(samples)
                    times.append(Date().timeIntervalSince(started))
                }
                times.sort()
                print(String(format: "encoder-bench: aural %@ %@ median %.1f ms min %.1f ms (%d runs)",
                             name, type.rawValue, times[times.count / 2] * 1000, times[0] * 1000, Self.runs))
            }
        }
    }
}
