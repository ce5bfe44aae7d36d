@testable import AuralAudio
import Testing

/// The mixing arithmetic of `PlaybackMixer`, apart from the server: a clock ring (the output's monitor) and one
/// lane per application, fed as a server would, mono, with a 10-frame wait.
@Suite("PlaybackMixer")
struct PlaybackMixerTests {
    static let maximumLag = 10

    static func feed(_ ring: SampleRing, _ samples: [Float]) {
        samples.withUnsafeBufferPointer { #expect(ring.write($0.baseAddress, count: samples.count)) }
    }

    static func mix(_ clock: SampleRing, _ lanes: [MixLane], draining: Bool = false) -> [Float] {
        PlaybackMixer.mix(clock: clock, lanes: lanes, channels: 1, maximumLagFrames: maximumLag, draining: draining)
    }

    @Test("lanes in step with the clock are summed, and the mix waits for a lane a little behind")
    func mixesInStep() {
        let clock = SampleRing(minimumCapacity: 256)
        let a = MixLane(ring: SampleRing(minimumCapacity: 256))
        let b = MixLane(ring: SampleRing(minimumCapacity: 256))
        Self.feed(clock, [Float](repeating: 0, count: 8))
        Self.feed(a.ring, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
        Self.feed(b.ring, [1, 1, 1, 1])
        // b has 4 frames of 8: the first 4 are mixed (clipped to 1), the rest waits for b.
        #expect(Self.mix(clock, [a, b]) == [1, 1, 1, 1])
        Self.feed(b.ring, [-1, -1, -1, -1])
        #expect(zip(Self.mix(clock, [a, b]), [-0.5, -0.4, -0.3, -0.2] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(!a.isBehind && !b.isBehind)
    }

    @Test("a lane that stalls past the wait is silence meanwhile; its late frames are mixed later, none lost")
    func stalledLaneIsMixedLate() {
        let clock = SampleRing(minimumCapacity: 256)
        let steady = MixLane(ring: SampleRing(minimumCapacity: 256))
        let stalling = MixLane(ring: SampleRing(minimumCapacity: 256))
        // Frame n of the steady application's playback is n / 1000, of the stalling one's 0.5 + n / 1000.
        func steadyFrame(_ n: Int) -> Float { Float(n) / 1000 }
        func stallingFrame(_ n: Int) -> Float { 0.5 + Float(n) / 1000 }
        var output: [Float] = []
        for block in 0..<6 {
            let range = (block * 5)..<(block * 5 + 5)
            Self.feed(clock, [Float](repeating: 0, count: 5))
            Self.feed(steady.ring, range.map(steadyFrame))
            // The stalling application delivers nothing in blocks 1–3, then their frames and block 4's at once.
            switch block {
            case 0, 5: Self.feed(stalling.ring, range.map(stallingFrame))
            case 4: Self.feed(stalling.ring, (5..<25).map(stallingFrame))
            default: break
            }
            output += Self.mix(clock, [steady, stalling])
            // Blocks 1 and 2 wait for it (10 frames behind at most); block 3 passes the wait and goes on without it.
            #expect(stalling.isBehind == (block == 3), "block \(block)")
        }
        // The end drains what the stalling lane still holds.
        output += Self.mix(clock, [steady, stalling], draining: true)
        // Its frames 5… come 15 frames late (the time the mix went on without it), each once and in order.
        func expected(_ n: Int) -> Float {
            let steadyPart = n < 30 ? steadyFrame(n) : 0
            let stallingIndex = n < 5 ? n : n - 15
            let stallingPart = (5..<20).contains(n) ? 0 : stallingFrame(stallingIndex)
            return steadyPart + stallingPart
        }
        #expect(output.count == 45)
        for n in output.indices where output.count == 45 {
            #expect(abs(output[n] - expected(n)) < 1e-6, "frame \(n): \(output[n]), expected \(expected(n))")
        }
        #expect(stalling.ring.available == 0 && steady.ring.available == 0)
    }

    @Test("a paused (corked) lane does not hold the mix, and an ended one is drained")
    func corkedAndEndedLanes() {
        let clock = SampleRing(minimumCapacity: 256)
        let corked = MixLane(ring: SampleRing(minimumCapacity: 256), isCorked: true)
        let ended = MixLane(ring: SampleRing(minimumCapacity: 256))
        Self.feed(clock, [Float](repeating: 0.5, count: 6))
        Self.feed(ended.ring, [0.25, 0.25])
        ended.signal.end(nil)
        // The clock only paces the mix: its own samples are not part of it.
        #expect(Self.mix(clock, [corked, ended]) == [0.25, 0.25, 0, 0, 0, 0])
        #expect(!corked.isBehind)
    }
}
