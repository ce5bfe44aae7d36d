import AuralAudio
import Foundation
import Testing

/// Decode-only speed and memory on a long file, run by hand (skipped unless AURAL_DECODE_BENCH names a file):
///
///     AURAL_DECODE_BENCH=/tmp/long.opus /usr/bin/time -v \
///       .build/test/release/AuralKitPackageTests.xctest --testing-library swift-testing --filter DecodeBenchmark
///
/// It reads the file with `AudioFileReader` in 10-second chunks, keeping nothing, and prints the audio's
/// length, the wall time, and the seconds of decoding per hour of audio; `time -v` gives the peak RSS.
@Suite("DecodeBenchmark")
struct DecodeBenchmark {
    static let file = ProcessInfo.processInfo.environment["AURAL_DECODE_BENCH"]

    @Test("decodes a long file in chunks", .enabled(if: file != nil))
    func decode() throws {
        let url = URL(fileURLWithPath: try #require(Self.file))
        let started = Date()
        let reader = try AudioFileReader(url: url)
        var samples = 0
        var peak: Float = 0
        while let chunk = try reader.read() {
            samples += chunk.count
            peak = max(peak, chunk.max() ?? 0)
        }
        let seconds = Date().timeIntervalSince(started)
        let audio = Double(samples) / 16_000
        print(String(format: "decode-bench: %@ %.1f s of audio (container: %.1f s) in %.2f s: %.2f s per hour of audio, peak %.3f",
                     url.lastPathComponent, audio, reader.duration ?? -1, seconds, seconds / audio * 3_600, peak))
        #expect(samples > 0)
    }
}
