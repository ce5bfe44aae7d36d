import TestSupport
import Testing

@testable import AuralWhisper

/// A text and its compression ratio from Python's `len(b) / len(zlib.compress(b))`.
struct RatioCase: Sendable, CustomTestStringConvertible {
    /// The text.
    var text: String
    /// Its compression ratio.
    var ratio: Double
    /// Test name.
    var testDescription: String { text.count > 40 ? "\(text.prefix(40).debugDescription)…" : text.debugDescription }
}

@Suite("Compression ratio", .heavyWork)
struct CompressionRatioTests {
    @Test(
        "equals Python's zlib ratio exactly",
        arguments: [
            RatioCase(text: "", ratio: 0.0),
            RatioCase(text: "a", ratio: 0.1111111111111111),
            RatioCase(text: "hello world", ratio: 0.5789473684210527),
            RatioCase(text: "Hello hello hello hello hello hello hello hello hello hello.", ratio: 3.3333333333333335),
            RatioCase(text: " And so my fellow Americans ask not what your country can do for you", ratio: 1.0303030303030303),
            RatioCase(text: String(repeating: "Grüße 😀 中文 ", count: 7), ratio: 4.242424242424242),
            RatioCase(text: String(repeating: "la ", count: 100), ratio: 20.0),
        ])
    func matchesPython(_ golden: RatioCase) {
        #expect(compressionRatio(golden.text) == golden.ratio)
    }

    @Test("flags a repetition loop above openai's 2.4 threshold")
    func flagsRepetition() {
        #expect(compressionRatio(" And so my fellow Americans ask not what your country can do for you") < 2.4)
        #expect(compressionRatio(String(repeating: " I'm going to go to the store.", count: 10)) > 2.4)
    }
}
