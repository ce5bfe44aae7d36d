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

    // The kept row goes through the last layer alone, where a full pass takes it with the others through BLAS, so
    // its hidden state may differ by summation order: 1e-4 of a hidden state whose values are of order 1–10 (float32
    // products of 384 and 1,536 terms). The cache, which the next tokens read, must be the same bits.
    @Test("a prompt pass that keeps one row's output gives that row's hidden state and the same next step")
    func outputRows() throws {
        let (full, model) = try Self.state(beams: 1)
        let (pruned, _) = try Self.state(beams: 1)
        let prompt = [model.tokenizer.sot] + model.tokenizer.encode(" Ever tried. Ever failed. No matter.")
        let all = full.forward([prompt]).array
        let kept = pruned.forward([prompt], outputRows: [0, 5]).array
        let d = model.decoder.width
        #expect(kept.count == 2 * d)
        let expected = Array(all[0..<d]) + Array(all[(5 * d)..<(6 * d)])
        #expect(zip(kept, expected).allSatisfy { abs($0 - $1) <= 1e-4 })
        #expect(pruned.length == full.length)
        // The next step reads every row's keys and values from the cache.
        #expect(Self.differences([full.forward([[11]]).array], [pruned.forward([[11]]).array]) == 0)
        // No row kept: the cache still takes the whole prompt.
        let (empty, _) = try Self.state(beams: 1)
        #expect(empty.forward([prompt], outputRows: []).count == 0)
        _ = empty.forward([[11]])
        #expect(Self.differences([full.forward([[12]]).array], [empty.forward([[12]]).array]) == 0)
    }
}
