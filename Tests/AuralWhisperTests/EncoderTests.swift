import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("Encoder", .heavyWork)
struct EncoderTests {
    @Test("first-window output matches CTranslate2's within 1e-3", arguments: ["tiny.en", "base"])
    func matchesReference(modelName: String) throws {
        let golden = try GoldenFeatures.load("\(modelName)-beckett-features")
        let model = try Fixtures.model(modelName)
        let samples = try Fixtures.samples("beckett.wav")
        let mel = model.logMel.spectrogram(samples)
        let window = mel.window(start: 0, count: golden.mel.firstWindowSegmentSize)
        let output = Encoder.encode(window, frames: 3000, weights: model.encoder)
        let width = model.modelWidth
        #expect(golden.encoder.shape == [1, 1500, width])
        for (row, expected) in golden.encoder.rowsFirst8 {
            let r = Int(row)!
            for (i, value) in expected.enumerated() {
                #expect(abs(Double(output[r * width + i]) - value) < 1e-3, "row \(r) column \(i)")
            }
        }
        let values = output.array
        let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
        let variance = values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(values.count)
        #expect(abs(mean - golden.encoder.mean) < 1e-4)
        #expect(abs(variance.squareRoot() - golden.encoder.std) < 1e-4)
    }
}
