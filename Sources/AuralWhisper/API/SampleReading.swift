/// 16 kHz mono audio read front to back in pieces, such as a file being decoded, so that long audio never has to be
/// held in memory whole.
///
/// ```swift
/// let (info, segments) = try transcriber.transcribe(reading: { try MyDecoder(url: file) })
/// ```
///
/// The transcriber opens the audio twice (a first pass finds the loudness maximum that normalises the log-mel, as
/// Whisper does over the whole input), so both readings must give the same samples.
public protocol SampleReading {
    /// The next samples at 16 kHz, mono, in -1...1; nil at the end. Pieces may have any length, empty ones included.
    mutating func read() throws -> [Float]?
}

/// Reads an array in pieces of 30 seconds.
struct ArraySampleReader: SampleReading {
    let samples: [Float]
    var position = 0

    init(_ samples: [Float]) {
        self.samples = samples
    }

    mutating func read() throws -> [Float]? {
        guard position < samples.count else { return nil }
        let end = min(samples.count, position + 30 * LogMel.sampleRate)
        defer { position = end }
        return Array(samples[position..<end])
    }
}
