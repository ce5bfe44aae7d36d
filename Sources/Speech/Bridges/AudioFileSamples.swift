import AuralAudio
import AuralWhisper
import Foundation

/// A file's sound as the engine reads it: `AudioFileReader`'s 16 kHz mono chunks as a `SampleReading`.
///
/// ```swift
/// let transcriber = Transcriber(model: model)
/// for try await event in transcriber.events(reading: { try AudioFileSamples(url: file) }) {
///     if case .segment(let segment) = event { print(segment.text) }
/// }
/// ```
///
/// The engine opens the audio twice (see `SampleReading`), so give it a closure that opens the file each time:
/// each reading decodes the file from its start, and memory stays at one chunk whatever the file's length.
/// Like `AudioFileReader`, a reading blocks on decoding; the transcriber calls it on its own thread.
public struct AudioFileSamples: SampleReading {
    /// The reader the samples come from.
    public let reader: AudioFileReader

    /// Opens `url` and reads its header (see `AudioFileReader.init(url:chunkSampleCount:)`).
    /// - Throws: `AudioSourceError` when the file is missing, not audio, damaged or in a codec FFmpeg lacks.
    public init(url: URL) throws {
        reader = try AudioFileReader(url: url)
    }

    /// Samples from a reader that is already open; it must not have been read from yet.
    public init(_ reader: AudioFileReader) {
        self.reader = reader
    }

    /// The next chunk of 16 kHz mono samples, or nil at the end of the file.
    /// - Throws: `AudioSourceError` when decoding fails.
    public func read() throws -> [Float]? {
        try reader.read()
    }
}
