import Foundation

/// Measures the numerics tests compare signals by (the audio layer's and AVFoundation's).
public enum SignalMeasures {
    /// Normalised cross-correlation over the common length: 1 for the same shape at any level, 0 for unrelated signals.
    public static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        var (ab, aa, bb) = (0.0, 0.0, 0.0)
        for index in 0..<min(a.count, b.count) {
            let (x, y) = (Double(a[index]), Double(b[index]))
            ab += x * y
            aa += x * x
            bb += y * y
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// Mean square.
    public static func energy(_ samples: [Float]) -> Double {
        samples.isEmpty ? 0 : samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)
    }

    /// Channel `channel` of interleaved frames of `channels` samples.
    public static func channel(_ channel: Int, of interleaved: [Float], channels: Int) -> [Float] {
        stride(from: channel, to: interleaved.count, by: channels).map { interleaved[$0] }
    }

    /// A sine tone, the same in every channel, interleaved.
    public static func tone(frequency: Double, amplitude: Double, sampleRate: Int, frames: Int, channels: Int = 1) -> [Float] {
        (0..<frames).flatMap { frame -> [Float] in
            let phase = 2 * Double.pi * frequency * Double(frame) / Double(sampleRate)
            return Array(repeating: Float(amplitude * sin(phase)), count: channels)
        }
    }
}
