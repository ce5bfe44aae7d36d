import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("DecoderState", .heavyWork)
struct DecoderStateTests {
    /// tiny.en's decoder over the encoded beckett.wav, with room for `beams` beams.
    static func state(beams: Int) throws -> (DecoderState, WhisperModel) {
        let model = try Fixtures.model("tiny.en")
        let window = try WindowDecoder(model: model).encode(try Fixtures.samples("beckett.wav"))
        let state = DecoderState(
            weights: model.decoder, encoderOutput: window.output, audioLength: window.positions, beamCapacity: beams)
        return (state, model)
    }

    /// Feeds a prompt to one beam, splits it into three and takes two steps with beams moving; returns the hidden
    /// states of every call.
    static func run(_ state: DecoderState, model: WhisperModel) -> [[Float]] {
        let prompt = [model.tokenizer.sot] + model.tokenizer.encode(" Ever tried. Ever failed.")
        var hidden = [state.forward([prompt]).array]
        state.reorder([0, 0, 0])
        hidden.append(state.forward([[11], [12], [13]]).array)
        state.reorder([2, 0, 0])
        hidden.append(state.forward([[14], [15], [16]]).array)
        return hidden
    }

    /// Values whose bits differ between two runs' hidden states (a count, so that a failure does not print them).
    static func differences(_ a: [[Float]], _ b: [[Float]]) -> Int {
        zip(a, b).reduce(abs(a.count - b.count)) { sum, pair in
            sum + zip(pair.0, pair.1).count { $0.bitPattern != $1.bitPattern } + abs(pair.0.count - pair.1.count)
        }
    }

    // Exact: the caches are not zeroed, and a decode that read past the tokens it fed would see other bits.
    @Test("a state grown past its beam capacity, and one decoding again after a reset, match a fresh state bit for bit")
    func cacheReuse() throws {
        let (sized, model) = try Self.state(beams: 3)
        let expected = Self.run(sized, model: model)
        let (grown, _) = try Self.state(beams: 1)
        #expect(Self.differences(Self.run(grown, model: model), expected) == 0)
        // Again over caches that hold a longer decode: nothing past the new tokens may be read.
        _ = sized.forward([[17], [18], [19]])
        sized.reset()
        #expect(Self.differences(Self.run(sized, model: model), expected) == 0)
    }
}
