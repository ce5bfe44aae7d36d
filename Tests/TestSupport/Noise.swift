import AuralWhisper
import Foundation

/// Reproducible noise for "no text from silence" tests, 16 kHz mono: the same samples on every run and machine.
public enum Noise {
    /// `seconds` of digital silence.
    public static func silence(seconds: Double) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * 16_000))
    }

    /// `seconds` of white (broadband) noise with the given RMS (0.03 is about −30 dBFS, a loud fan or hiss).
    public static func white(seconds: Double, rms: Float, seed: UInt64 = 1) -> [Float] {
        var generator = SplitMix64(seed: seed)
        // Uniform on [−a, a] has RMS a/√3.
        let amplitude = rms * 3.0.squareRoot().float
        return (0..<Int(seconds * 16_000)).map { _ in amplitude * (2 * generator.unit() - 1) }
    }

    /// `seconds` of low room noise: brown (1/f²) noise, white noise integrated with a slight leak, at the given RMS
    /// (0.003 is about −50 dBFS, a quiet room with a distant hum).
    public static func room(seconds: Double, rms: Float, seed: UInt64 = 2) -> [Float] {
        var generator = SplitMix64(seed: seed)
        var level: Float = 0
        var samples = (0..<Int(seconds * 16_000)).map { _ -> Float in
            level = 0.995 * level + 0.1 * (2 * generator.unit() - 1)
            return level
        }
        let measured = (samples.reduce(0) { $0 + $1 * $1 } / Float(max(1, samples.count))).squareRoot()
        let scale = measured > 0 ? rms / measured : 0
        for i in samples.indices { samples[i] *= scale }
        return samples
    }

    /// The ten minutes of the voice activation tests: 200 s each of digital silence, low room noise and broadband noise.
    public static func tenMinutes() -> [Float] {
        silence(seconds: 200) + room(seconds: 200, rms: 0.003) + white(seconds: 200, rms: 0.03)
    }

    /// `speech` with `noise` added (the noise repeats when shorter).
    public static func mix(_ speech: [Float], with noise: [Float]) -> [Float] {
        guard !noise.isEmpty else { return speech }
        return speech.indices.map { speech[$0] + noise[$0 % noise.count] }
    }
}

extension SplitMix64 {
    /// A uniform Float in [0, 1) from the draw's top 24 bits.
    fileprivate mutating func unit() -> Float { Float(next() >> 40) * 0x1p-24 }
}

extension Double {
    fileprivate var float: Float { Float(self) }
}

extension Noise {
    /// Writes 16 kHz mono samples as a 16-bit PCM WAV file (clipped to ±1).
    public static func writeWAV(_ samples: [Float], to url: URL) throws {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 2)
        data.append(contentsOf: Array("RIFF".utf8)); append(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
        append(UInt32(16_000)); append(UInt32(32_000)); append(UInt16(2)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(bytes)
        data.reserveCapacity(data.count + samples.count * 2)
        for sample in samples { append(Int16((max(-1, min(1, sample)) * 32767).rounded())) }
        try data.write(to: url)
    }
}
