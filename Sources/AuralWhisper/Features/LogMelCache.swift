import Foundation
import Synchronization

/// Keeps the log-mel frames of the last buffer a live session encoded, so that the next buffer, which mostly repeats
/// it and grows at its end, computes only its new frames. The spectrogram is the same, bit for bit, as
/// `LogMel.spectrogram` of the whole buffer.
///
/// The DFT and the mel filters run as products of `LogMel.batchFrames` frames counted from the buffer's first
/// sample, and BLAS rounds a row differently at another position in a product (or in a shorter product). So a frame
/// is taken from the last buffer only with its whole batch: a batch that was complete in both buffers, whose frames
/// read only samples that the two buffers hold alike at the same positions, before either buffer's end and its
/// padding. A buffer whose start moved (a trim) computes every frame again.
/// Whisper's normalisation (the floor 8 below the maximum) is made over the whole buffer every time.
///
/// Pass one per live session to `WindowDecoder`'s encodes (`melCache:`). Safe to use from several threads: a call
/// that finds another one running computes the whole buffer.
public final class LogMelCache: Sendable {
    /// The last buffer, with its log10 mel energies [melCount × frames] (before the normalisation).
    private struct Entry: Sendable {
        let samples: [Float]
        let logEnergies: [Float]
        let frames: Int
        let melCount: Int
        /// `WorkerPool.current.threads` when computed: the thread count splits a batch's product into parts.
        let threads: Int
        /// Frames taken from the entry before.
        let reusedFrames: Int
    }

    private let last = Mutex<Entry?>(nil)

    public init() {}

    /// Frames the last call took from the call before it (for tests).
    var reusedFrames: Int { last.withLock { $0?.reusedFrames ?? 0 } }

    /// `logMel.spectrogram(samples)`, computing only the frames that differ from the last call's.
    func spectrogram(_ samples: [Float], logMel: LogMel) -> MelSpectrogram {
        let frames = LogMel.frameCount(samples: samples.count)
        guard frames > 0 else { return MelSpectrogram(melCount: logMel.melCount, frames: 0, values: []) }
        let threads = WorkerPool.current.threads
        let previous = last.withLock { $0.take() }
        let kept = previous.map {
            Self.reusableFrames(of: $0, for: samples, frames: frames, melCount: logMel.melCount, threads: threads)
        } ?? 0
        let fresh = samples.withUnsafeBufferPointer { buffer in
            logMel.energies(
                firstFrame: kept, count: frames - kept,
                signal: SignalWindow(samples: buffer, offset: 0, audioLength: samples.count, padding: LogMel.hopLength))
        }
        var logEnergies = [Float](repeating: 0, count: logMel.melCount * frames)
        logEnergies.withUnsafeMutableBufferPointer { out in
            for m in 0..<logMel.melCount {
                let row = out.baseAddress! + m * frames
                if let previous, kept > 0 {
                    previous.logEnergies.withUnsafeBufferPointer {
                        row.update(from: $0.baseAddress! + m * previous.frames, count: kept)
                    }
                }
                fresh.withUnsafeBufferPointer { computed in
                    let source = computed.baseAddress! + m * (frames - kept)
                    for f in 0..<frames - kept { row[kept + f] = LogMel.log10Energy(source[f]) }
                }
            }
        }
        last.withLock {
            $0 = Entry(
                samples: samples, logEnergies: logEnergies, frames: frames, melCount: logMel.melCount, threads: threads,
                reusedFrames: kept)
        }
        LogMel.normalise(&logEnergies)
        return MelSpectrogram(melCount: logMel.melCount, frames: frames, values: logEnergies)
    }

    /// Frames at the start of a buffer of `samples` (`frames` frames) that equal `entry`'s: whole batches that are
    /// complete in both, whose every frame reads samples that lie before both buffers' ends and are the same in both.
    private static func reusableFrames(of entry: Entry, for samples: [Float], frames: Int, melCount: Int, threads: Int) -> Int {
        guard entry.melCount == melCount, entry.threads == threads else { return 0 }
        let batch = LogMel.batchFrames
        let reach = LogMel.fftSize / 2
        var kept = 0
        var compared = 0  // samples 0 ..< compared are known to be equal
        while kept + batch <= min(frames, entry.frames) {
            // The batch's last frame reads samples up to its centre + 200 (exclusive).
            let end = (kept + batch - 1) * LogMel.hopLength + reach
            guard end <= min(samples.count, entry.samples.count) else { break }
            let equal = samples.withUnsafeBytes { new in
                entry.samples.withUnsafeBytes { old in
                    let (from, bytes) = (compared * MemoryLayout<Float>.stride, (end - compared) * MemoryLayout<Float>.stride)
                    return memcmp(new.baseAddress! + from, old.baseAddress! + from, bytes) == 0
                }
            }
            guard equal else { break }
            compared = end
            kept += batch
        }
        return kept
    }
}
