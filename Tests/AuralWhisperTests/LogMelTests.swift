import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("LogMel", .heavyWork)
struct LogMelTests {
    /// 0.5·sin(2π·440t) + 0.25·sin(2π·3000t), one second: the signal of the spec's numpy test vectors.
    /// Computed in Double and rounded once, as numpy does (Float phases drift by 1e-3 rad after a second).
    static let twoTones: [Float] = (0..<16_000).map { n in
        let t = Double(n) / 16_000
        return Float(0.5 * sin(2 * .pi * 440 * t) + 0.25 * sin(2 * .pi * 3000 * t))
    }

    @Test("filterbank matches librosa's Slaney filters")
    func filterbank() {
        let filters = LogMel.melFilters(melCount: 80)
        #expect(abs(filters.reduce(0, +) - 1.9990241) < 1e-5)
        #expect(abs(filters[1] - 0.024863) < 1e-6)
        let row79 = Array(filters[(79 * 201)..<(80 * 201)])
        #expect(row79.firstIndex(of: row79.max()!) == 192)
    }

    @Test("two tones without padding match the numpy reference within 1e-4")
    func plainSpectrogram() {
        let mel = LogMel(melCount: 80).spectrogram(Self.twoTones, padding: 0)
        #expect(mel.melCount == 80 && mel.frames == 100)
        let values = mel.values
        #expect(abs(values.max()! - 1.4382038) < 1e-4)
        #expect(abs(values.min()! - -0.5617962) < 1e-4)
        #expect(abs(values.reduce(0, +) / Float(values.count) - -0.403856) < 1e-4)
        func at(_ m: Int, _ t: Int) -> Float { values[m * 100 + t] }
        for m in 0..<9 { #expect(abs(at(m, 50) - -0.561796) < 1e-4) }
        #expect(abs(at(9, 50) - 1.159391) < 1e-4)
        for (m, expected) in zip(10..<14, [1.338742, 1.109961, 1.335512, 1.248475] as [Float]) {
            #expect(abs(at(m, 0) - expected) < 1e-4)
        }
        for (m, expected) in zip(10..<14, [1.35047, 1.435672, 1.297175, 0.498178] as [Float]) {
            #expect(abs(at(m, 99) - expected) < 1e-4)
        }
    }

    @Test("a real recording's features match faster-whisper's within 1e-4", arguments: ["beckett", "two_cities", "endgame_nagg_nell"])
    func recordingFeatures(recording: String) throws {
        let golden = try GoldenFeatures.load("tiny.en-\(recording)-features")
        let samples = try Fixtures.samples("\(recording).wav")
        #expect(samples.count == golden.audio.numSamples)
        let mel = LogMel(melCount: 80).spectrogram(samples)
        #expect([mel.melCount, mel.frames] == golden.mel.fullShape)
        #expect(abs(Double(mel.values.max()!) - golden.mel.fullMax) < 1e-4)
        let window = mel.window(start: 0, count: golden.mel.firstWindowSegmentSize)
        for entry in golden.mel.firstWindow.valuesAt {
            let (m, t, expected) = (Int(entry[0]), Int(entry[1]), entry[2])
            #expect(abs(Double(window[m * 3000 + t]) - expected) < 1e-4, "mel[\(m), \(t)]")
        }
        let mean = window.reduce(0.0) { $0 + Double($1) } / Double(window.count)
        #expect(abs(mean - golden.mel.firstWindow.mean) < 1e-5)
    }

    @Test("zero-length audio gives a single frame of padding and no crash")
    func emptyAudio() {
        let mel = LogMel(melCount: 80).spectrogram([])
        #expect(mel.frames == 1)
        #expect(mel.values.allSatisfy { $0.isFinite })
    }
}
