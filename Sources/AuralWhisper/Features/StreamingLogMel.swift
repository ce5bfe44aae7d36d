import Foundation

/// Whisper's log-mel spectrogram of audio read in pieces, with memory bounded by a window rather than by the audio.
///
/// Whisper floors each log-mel value at 8 below the maximum over the whole input, so a window cannot be normalised
/// before all the audio has been seen. `scan` reads the audio once and keeps only that maximum and the sample count;
/// `MelWindows` then reads it again and computes each 30-second window as the long-form loop asks for it. The
/// windows equal the same frames of `LogMel.spectrogram` of the whole audio.
enum StreamingLogMel {
    /// What the first pass learns: the number of samples and the largest log10 mel energy.
    struct Summary {
        var sampleCount: Int
        var maximum: Float
    }

    /// Reads all of `reader` and returns its length and log-mel maximum.
    /// - Throws: what the reader throws, or `TranscriptionError.invalidAudio` for a sample that is not finite.
    static func scan(_ reader: inout some SampleReading, logMel: LogMel, isCancelled: () -> Bool = { false }) throws -> Summary {
        var buffer: [Float] = []
        var offset = 0  // audio index of buffer[0]
        var total = 0
        var nextFrame = 0
        var maximum = -Float.infinity
        let half = LogMel.fftSize / 2

        func consume(frames count: Int, audioLength: Int, padding: Int) {
            guard count > 0 else { return }
            let energies = buffer.withUnsafeBufferPointer {
                logMel.energies(firstFrame: nextFrame, count: count, signal: SignalWindow(samples: $0, offset: offset, audioLength: audioLength, padding: padding))
            }
            for value in energies { maximum = max(maximum, log10f(max(value, 1e-10))) }
            nextFrame += count
        }

        while let piece = try reader.read() {
            if isCancelled() { throw CancellationError() }
            if let bad = piece.firstIndex(where: { !$0.isFinite }) {
                throw TranscriptionError.invalidAudio(reason: "sample \(total + bad) is \(piece[bad]), not a finite number")
            }
            buffer += piece
            total += piece.count
            // Frames whose samples all lie inside what has been read, away from the (unknown) end.
            let ready = total >= half ? (total - half) / LogMel.hopLength + 1 : 0
            while ready - nextFrame >= LogMel.batchFrames {
                consume(frames: LogMel.batchFrames, audioLength: Int.max / 4, padding: 0)
                let keepFrom = nextFrame * LogMel.hopLength - half
                if keepFrom > offset {
                    buffer.removeFirst(keepFrom - offset)
                    offset = keepFrom
                }
            }
        }
        let frames = LogMel.frameCount(samples: total)
        if offset > 0 || nextFrame > 0 || frames > 0 {
            // The last frames reach the zero padding and the reflection at the end.
            consume(frames: frames - nextFrame, audioLength: total, padding: LogMel.hopLength)
        }
        return Summary(sampleCount: total, maximum: maximum)
    }
}

/// The second pass: normalised 30-second log-mel windows at increasing positions, read from the audio as needed.
///
/// Holds the samples from the current window's start (less 200 for the first frame's reach) to its end, and drops
/// them once the loop moves past.
final class MelWindows {
    private var reader: any SampleReading
    private let logMel: LogMel
    private let summary: StreamingLogMel.Summary
    private var buffer: [Float] = []
    private var offset = 0
    private var readCount = 0

    /// Frames of the whole spectrogram (the padding frame included).
    let frames: Int

    init(reader: any SampleReading, logMel: LogMel, summary: StreamingLogMel.Summary) {
        self.reader = reader
        self.logMel = logMel
        self.summary = summary
        frames = LogMel.frameCount(samples: summary.sampleCount)
    }

    /// Frames `start ..< start + count` as a normalised [melCount × 3000] window, zero-padded on the right, exactly as
    /// `MelSpectrogram.window` gives them. `start` never decreases between calls.
    func window(start: Int, count: Int) throws -> [Float] {
        let n = max(0, min(count, frames - start, LogMel.windowFrames))
        var out = [Float](repeating: 0, count: logMel.melCount * LogMel.windowFrames)
        guard n > 0 else { return out }
        // Compute whole batches, as the whole spectrogram does, and keep frames start ..< start + n.
        let first = batchStart(of: start)
        let last = min(frames, batchStart(of: start + n - 1) + LogMel.batchFrames)
        try hold(from: sampleStart(ofFrame: first), to: last * LogMel.hopLength + LogMel.fftSize / 2)
        let energies = buffer.withUnsafeBufferPointer {
            logMel.energies(firstFrame: first, count: last - first, signal: SignalWindow(samples: $0, offset: offset, audioLength: summary.sampleCount, padding: LogMel.hopLength))
        }
        let floor = summary.maximum - 8
        let width = last - first
        for m in 0..<logMel.melCount {
            for f in 0..<n {
                out[m * LogMel.windowFrames + f] = (max(log10f(max(energies[m * width + start - first + f], 1e-10)), floor) + 4) / 4
            }
        }
        return out
    }

    /// The highest RMS of the 100 ms frames of audio samples `from ..< from + count` (clipped to the audio).
    func loudestFrameRMS(from: Int, count: Int) throws -> Double {
        // Keep what a window starting here reads.
        try hold(from: min(from, sampleStart(ofFrame: batchStart(of: from / LogMel.hopLength))), to: from + count)
        let end = min(summary.sampleCount, from + count)
        var loudest = 0.0
        var start = from
        while start < end {
            let stop = min(end, start + 1600)
            var sum = 0.0
            for i in start..<stop {
                let value = Double(buffer[i - offset])
                sum += value * value
            }
            loudest = max(loudest, (sum / Double(stop - start)).squareRoot())
            start = stop
        }
        return loudest
    }

    private func batchStart(of frame: Int) -> Int {
        (frame / LogMel.batchFrames) * LogMel.batchFrames
    }

    /// The first audio sample frame `frame` reads (its 400-sample span is centred on sample `frame · 160`).
    private func sampleStart(ofFrame frame: Int) -> Int {
        max(0, frame * LogMel.hopLength - LogMel.fftSize / 2)
    }

    /// Reads until the buffer holds audio samples `from ..< to` (or up to the end of the audio), and drops what lies
    /// before `from`. The buffer always holds samples `offset ..< readCount`.
    private func hold(from: Int, to: Int) throws {
        precondition(from >= offset, "windows are read front to back")
        let drop = min(from - offset, buffer.count)
        buffer.removeFirst(drop)
        offset += drop
        let target = min(to, summary.sampleCount)
        while readCount < target {
            guard let piece = try reader.read() else {
                throw TranscriptionError.invalidAudio(
                    reason: "the audio ended \(summary.sampleCount - readCount) samples earlier on its second reading than on its first")
            }
            let pieceStart = readCount
            readCount += piece.count
            guard readCount <= summary.sampleCount else {
                throw TranscriptionError.invalidAudio(reason: "the audio grew between its first and second reading")
            }
            if buffer.isEmpty && offset < from {
                // Skip samples before the window (after a window that was skipped as silence, say).
                let skip = min(piece.count, from - pieceStart)
                buffer += piece[skip...]
                offset = pieceStart + skip
            } else {
                buffer += piece
            }
        }
    }
}
