import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("CMTime")
struct CMTimeTests {
    @Test("seconds is value over timescale; an invalid time has NaN seconds")
    func seconds() {
        #expect(CMTime(value: 24_000, timescale: 16_000).seconds == 1.5)
        #expect(CMTime(value: -1, timescale: 4).seconds == -0.25)
        #expect(CMTime.invalid.seconds.isNaN)
        #expect(!CMTime.invalid.isValid)
        #expect(CMTime.zero.isValid && CMTime.zero.seconds == 0 && CMTime.zero.timescale == 16_000)
    }

    @Test(
        "init(seconds:preferredTimescale:) rounds to the nearest unit, halves away from zero",
        arguments: [
            (1.5, 16_000, 24_000), (0.00003, 16_000, 0), (0.00004, 16_000, 1), (1.0 / 32_000, 16_000, 1),
            (-1.0 / 32_000, 16_000, -1), (2.49, 1, 2), (2.5, 1, 3), (-2.5, 1, -3), (0.1, 1_000, 100),
        ] as [(Double, Int32, Int64)])
    func rounding(seconds: Double, timescale: Int32, value: Int64) {
        let time = CMTime(seconds: seconds, preferredTimescale: timescale)
        #expect(time.timescale == timescale)
        #expect(time.value == value)
    }

    @Test("NaN, infinity, overflow and a timescale that is not positive give .invalid")
    func invalidSeconds() {
        #expect(!CMTime(seconds: .nan, preferredTimescale: 16_000).isValid)
        #expect(!CMTime(seconds: .infinity, preferredTimescale: 16_000).isValid)
        #expect(!CMTime(seconds: 1e300, preferredTimescale: 16_000).isValid)
        #expect(!CMTime(seconds: 1, preferredTimescale: 0).isValid)
        #expect(!CMTime(seconds: 1, preferredTimescale: -5).isValid)
    }

    @Test("+ and - are exact with equal timescales and use the least common multiple otherwise")
    func arithmetic() {
        let a = CMTime(sample: 16_000), b = CMTime(sample: 8_000)
        #expect(a + b == CMTime(sample: 24_000))
        #expect((a + b).timescale == 16_000 && (a + b).value == 24_000)
        #expect((b - a).value == -8_000)
        let third = CMTime(value: 1, timescale: 3), half = CMTime(value: 1, timescale: 2)
        let sum = third + half
        #expect(sum.timescale == 6 && sum.value == 5)
        let mixed = CMTime(value: 1, timescale: 44_100) + CMTime(value: 1, timescale: 16_000)
        #expect(mixed.timescale == 7_056_000 && mixed.value == 160 + 441)
    }

    @Test("+ falls back to the larger timescale, rounded, when the common multiple overflows Int32")
    func arithmeticFallback() {
        let a = CMTime(value: 1, timescale: 1_000_003), b = CMTime(value: 1, timescale: 999_983)
        let sum = a + b
        #expect(sum.timescale == 1_000_003)
        #expect(sum.value == 2)
        #expect(!(CMTime.invalid + a).isValid)
        #expect(!(a - CMTime.invalid).isValid)
        #expect(!(CMTime(value: .max, timescale: 1) + CMTime(value: 1, timescale: 1)).isValid, "overflow is invalid")
    }

    @Test("equality, hashing and order compare numbers, not fields; invalid times sort last")
    func comparison() {
        let half = CMTime(value: 1, timescale: 2), samples = CMTime(value: 8_000, timescale: 16_000)
        #expect(half == samples)
        #expect(half.hashValue == samples.hashValue)
        #expect(Set([half, samples]).count == 1)
        #expect(CMTime(value: 0, timescale: 1) == .zero)
        #expect(CMTime(value: 1, timescale: 3) < CMTime(value: 1, timescale: 2))
        #expect(CMTime(value: -1, timescale: 2) < .zero)
        #expect(CMTime(value: .max, timescale: 1) < .invalid)
        #expect(CMTime.invalid == CMTime(value: 7, timescale: -1))
        #expect(!(CMTime.invalid < .invalid))
        let huge = CMTime(value: .max - 1, timescale: 1_000_000_007),
            other = CMTime(value: .max, timescale: 1_000_000_007)
        #expect(huge < other, "compared through full-width products, without overflow")
    }

    @Test("Codable round trip keeps value and timescale")
    func codable() throws {
        let time = CMTime(value: 12_345, timescale: 16_000)
        let data = try JSONEncoder().encode(time)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        #expect(json == ["value": 12_345, "timescale": 16_000])
        let decoded = try JSONDecoder().decode(CMTime.self, from: data)
        #expect(decoded.value == 12_345 && decoded.timescale == 16_000)
        let range = CMTimeRange(start: time, duration: CMTime(sample: 800))
        #expect(try JSONDecoder().decode(CMTimeRange.self, from: JSONEncoder().encode(range)) == range)
    }

    @Test("sample helpers count 16 kHz samples")
    func samples() {
        #expect(CMTime(sample: 480).seconds == 0.03)
        #expect(CMTime(value: 3, timescale: 100).sample == 480)
        #expect(CMTime(sample: 123).sample == 123)
        #expect(CMTimeRange(samples: 160..<480).samples == 160..<480)
        #expect(CMTime(sample: 16_000).description == "1.0 s (16000/16000)")
    }
}

@Suite("CMTimeRange")
struct CMTimeRangeTests {
    let range = CMTimeRange(start: CMTime(sample: 16_000), end: CMTime(sample: 32_000))

    @Test("end is start + duration, and init(start:end:) is its inverse")
    func end() {
        #expect(range.duration == CMTime(sample: 16_000))
        #expect(range.end == CMTime(value: 2, timescale: 1))
        #expect(CMTimeRange.zero.isEmpty && CMTimeRange.zero.start == .zero)
        #expect(!CMTimeRange.invalid.isValid)
        #expect(range.description == "[1.0 s, 2.0 s)")
    }

    @Test("containsTime is half-open: start in, end out")
    func contains() {
        #expect(range.containsTime(CMTime(sample: 16_000)))
        #expect(range.containsTime(CMTime(sample: 31_999)))
        #expect(!range.containsTime(CMTime(sample: 32_000)))
        #expect(!range.containsTime(CMTime(sample: 15_999)))
        #expect(!range.containsTime(.invalid))
        #expect(!CMTimeRange.zero.containsTime(.zero))
    }

    @Test("intersection and union")
    func setOperations() {
        let later = CMTimeRange(start: CMTime(value: 3, timescale: 2), duration: CMTime(value: 1, timescale: 1))
        #expect(
            range.intersection(later) == CMTimeRange(start: CMTime(value: 3, timescale: 2), end: CMTime(sample: 32_000))
        )
        #expect(range.union(later) == CMTimeRange(start: CMTime(sample: 16_000), end: CMTime(value: 5, timescale: 2)))
        let apart = CMTimeRange(start: CMTime(value: 5, timescale: 1), duration: CMTime(value: 1, timescale: 1))
        #expect(range.intersection(apart).isEmpty)
        #expect(!range.intersection(.invalid).isValid)
    }
}
