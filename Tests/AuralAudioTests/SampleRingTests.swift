@testable import AuralAudio
import Testing

@Suite("SampleRing")
struct SampleRingTests {
    @Test("samples come out in order across the wrap-around")
    func wrapsAround() {
        let ring = SampleRing(minimumCapacity: 8)
        var next: Float = 0
        var expected: [Float] = []
        var received: [Float] = []
        for round in 0..<50 {
            let chunk = (0..<(round % 5 + 1)).map { _ in next += 1; return next }
            chunk.withUnsafeBufferPointer { #expect(ring.write($0.baseAddress, count: chunk.count)) }
            expected += chunk
            received += ring.read(maximum: 3)
        }
        received += ring.read(maximum: 100)
        #expect(received == expected)
        #expect(ring.droppedSamples == 0)
    }

    @Test("a full ring drops and counts what does not fit, and a hole is silence")
    func overrunsAreCounted() {
        let ring = SampleRing(minimumCapacity: 8)
        let data: [Float] = [1, 2, 3, 4, 5, 6]
        data.withUnsafeBufferPointer { #expect(ring.write($0.baseAddress, count: 6)) }
        data.withUnsafeBufferPointer { #expect(!ring.write($0.baseAddress, count: 6)) }
        #expect(ring.droppedSamples == 6)
        #expect(ring.write(nil, count: 2))
        #expect(ring.read(maximum: 100, granule: 4) == [1, 2, 3, 4, 5, 6, 0, 0])
        #expect(ring.available == 0)
    }
}
