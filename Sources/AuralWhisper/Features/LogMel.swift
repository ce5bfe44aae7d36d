import Foundation

/// Whisper's log-mel front end: 25 ms periodic-Hann frames every 10 ms, power spectrum, Slaney mel filters,
/// log10 with a floor 8 (log10 units) below the maximum, scaled to about −1…1.
///
/// Follows faster-whisper's `FeatureExtractor` (160 samples of zero padding, the floor taken over the whole input),
/// which matches `openai/whisper:whisper/audio.py log_mel_spectrogram` up to that padding. The DFT is a matrix product
/// (400 × 402 cos/sin basis with the window folded in), so it runs on the same BLAS as the network.
struct LogMel: Sendable {
    static let sampleRate = WhisperTime.sampleRate
    static let fftSize = 400
    static let hopLength = WhisperTime.samplesPerFrame
    static let bins = fftSize / 2 + 1
    /// Frames in one 30-second window.
    static let windowFrames = WhisperTime.windowFrames
    /// Frames per DFT product. Products always cover frames `k · batchFrames ..< (k + 1) · batchFrames` (or up to the
    /// last frame), because BLAS may round a row differently at another position in a product: computing the same
    /// batches keeps every frame bit-identical however the audio is read (see `StreamingLogMel`, `LogMelCache`).
    static let batchFrames = 250

    let melCount: Int
    /// [melCount × 201] Slaney filterbank, row-major.
    private let filters: [Float]
    /// [400 × 402]: windowed cos in columns 0…200, windowed sin in 201…401 (Double: see `BLAS.dgemm`).
    private let basis: [Double]

    init(melCount: Int) {
        self.melCount = melCount
        filters = LogMel.melFilters(melCount: melCount)
        var basis = [Double](repeating: 0, count: LogMel.fftSize * 2 * LogMel.bins)
        for n in 0..<LogMel.fftSize {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(LogMel.fftSize))
            for k in 0..<LogMel.bins {
                let angle = 2 * Double.pi * Double((n * k) % LogMel.fftSize) / Double(LogMel.fftSize)
                basis[n * 2 * LogMel.bins + k] = Double(Float(window)) * cos(angle)
                basis[n * 2 * LogMel.bins + LogMel.bins + k] = -Double(Float(window)) * sin(angle)
            }
        }
        self.basis = basis
    }

    /// The log-mel spectrogram of 16 kHz mono samples after appending `padding` zeros:
    /// [melCount × frames] row-major with frames = (samples + padding) / 160, rounded down.
    func spectrogram(_ samples: [Float], padding: Int = hopLength) -> MelSpectrogram {
        let frames = LogMel.frameCount(samples: samples.count, padding: padding)
        guard frames > 0 else { return MelSpectrogram(melCount: melCount, frames: 0, values: []) }
        var out = samples.withUnsafeBufferPointer { buffer in
            energies(firstFrame: 0, count: frames, signal: SignalWindow(samples: buffer, offset: 0, audioLength: samples.count, padding: padding))
        }
        for i in out.indices { out[i] = LogMel.log10Energy(out[i]) }
        LogMel.normalise(&out)
        return MelSpectrogram(melCount: melCount, frames: frames, values: out)
    }

    /// The log10 of a mel energy, floored at 1e-10 (before the floor relative to the maximum).
    @inline(__always)
    static func log10Energy(_ energy: Float) -> Float {
        log10f(max(energy, 1e-10))
    }

    /// Whisper's normalisation of log10 mel energies: floored at 8 below their maximum, scaled to about −1…1.
    static func normalise(_ values: inout [Float]) {
        var maxValue = -Float.infinity
        for v in values where v > maxValue { maxValue = v }
        let floor = maxValue - 8
        for i in values.indices { values[i] = (max(values[i], floor) + 4) / 4 }
    }

    /// Frames in the spectrogram of `samples` samples followed by `padding` zeros.
    static func frameCount(samples: Int, padding: Int = hopLength) -> Int {
        (samples + padding) / hopLength
    }

    /// Mel energies before the log: frames `firstFrame ..< firstFrame + count` as [melCount × count] row-major.
    ///
    /// Frame `f` is centred on padded-signal sample `f · 160` and reads 200 samples either side, reflected at both
    /// ends of the padded signal (`numpy.pad(mode: "reflect")`), so any range of frames computed from a window of the
    /// signal equals the same frames of the whole spectrogram. `signal` must hold every sample those frames read, and
    /// `firstFrame` must be a multiple of `batchFrames` (see there).
    func energies(firstFrame: Int, count: Int, signal: SignalWindow) -> [Float] {
        precondition(firstFrame % LogMel.batchFrames == 0, "products start at a batch boundary")
        var out = [Float](repeating: 0, count: melCount * count)
        guard count > 0 else { return out }
        let batch = LogMel.batchFrames
        let stride2 = 2 * LogMel.bins
        var frameBuffer = [Double](repeating: 0, count: batch * LogMel.fftSize)
        var spectrum = [Double](repeating: 0, count: batch * stride2)
        var power = [Float](repeating: 0, count: batch * LogMel.bins)
        let half = LogMel.fftSize / 2
        var start = 0
        while start < count {
            let rows = min(batch, count - start)
            frameBuffer.withUnsafeMutableBufferPointer { fb in
                for f in 0..<rows {
                    let first = (firstFrame + start + f) * LogMel.hopLength - half
                    let row = fb.baseAddress! + f * LogMel.fftSize
                    if first >= signal.offset, first + LogMel.fftSize <= min(signal.audioLength, signal.end) {
                        let base = signal.samples.baseAddress! + (first - signal.offset)
                        for n in 0..<LogMel.fftSize { row[n] = Double(base[n]) }
                    } else {
                        for n in 0..<LogMel.fftSize { row[n] = Double(signal.sample(atPaddedIndex: first + n)) }
                    }
                }
            }
            frameBuffer.withUnsafeBufferPointer { fb in
                basis.withUnsafeBufferPointer { b in
                    spectrum.withUnsafeMutableBufferPointer { sp in
                        BLAS.dgemm(
                            m: rows, n: stride2, k: LogMel.fftSize, a: fb.baseAddress!, lda: LogMel.fftSize,
                            b: b.baseAddress!, ldb: stride2, c: sp.baseAddress!, ldc: stride2)
                    }
                }
            }
            for f in 0..<rows {
                for k in 0..<LogMel.bins {
                    let re = spectrum[f * stride2 + k]
                    let im = spectrum[f * stride2 + LogMel.bins + k]
                    power[f * LogMel.bins + k] = Float(re * re + im * im)
                }
            }
            power.withUnsafeBufferPointer { p in
                filters.withUnsafeBufferPointer { fl in
                    out.withUnsafeMutableBufferPointer { o in
                        BLAS.gemm(
                            m: melCount, n: rows, k: LogMel.bins, a: fl.baseAddress!, lda: LogMel.bins,
                            b: p.baseAddress!, ldb: LogMel.bins, transposeB: true, c: o.baseAddress! + start, ldc: count)
                    }
                }
            }
            start += rows
        }
        return out
    }

    /// `librosa.filters.mel(sr: 16000, n_fft: 400, n_mels:)` with Slaney scale and area normalisation.
    static func melFilters(melCount: Int) -> [Float] {
        func hzToMel(_ f: Double) -> Double {
            let minLogHz = 1000.0, fSp = 200.0 / 3
            if f < minLogHz { return f / fSp }
            return minLogHz / fSp + log(f / minLogHz) / (log(6.4) / 27)
        }
        func melToHz(_ m: Double) -> Double {
            let minLogHz = 1000.0, fSp = 200.0 / 3, minLogMel = minLogHz / fSp
            if m < minLogMel { return fSp * m }
            return minLogHz * exp((log(6.4) / 27) * (m - minLogMel))
        }
        let maxMel = hzToMel(8000)
        let points = (0..<(melCount + 2)).map { melToHz(maxMel * Double($0) / Double(melCount + 1)) }
        var weights = [Float](repeating: 0, count: melCount * bins)
        for m in 0..<melCount {
            let lowerWidth = points[m + 1] - points[m]
            let upperWidth = points[m + 2] - points[m + 1]
            let norm = 2 / (points[m + 2] - points[m])
            for k in 0..<bins {
                let f = Double(k) * Double(sampleRate) / Double(fftSize)
                let lower = (f - points[m]) / lowerWidth
                let upper = (points[m + 2] - f) / upperWidth
                weights[m * bins + k] = Float(max(0, min(lower, upper)) * norm)
            }
        }
        return weights
    }
}

/// A log-mel spectrogram, [melCount × frames] row-major (100 frames per second).
struct MelSpectrogram: Sendable {
    let melCount: Int
    let frames: Int
    let values: [Float]

    /// Frames `start ..< start + count` as a [melCount × 3000] window, zero-padded on the right (`pad_or_trim`).
    func window(start: Int, count: Int, width: Int = LogMel.windowFrames) -> [Float] {
        var out = [Float](repeating: 0, count: melCount * width)
        let n = max(0, min(count, frames - start, width))
        guard n > 0 else { return out }
        values.withUnsafeBufferPointer { v in
            out.withUnsafeMutableBufferPointer { o in
                for m in 0..<melCount {
                    (o.baseAddress! + m * width).update(from: v.baseAddress! + m * frames + start, count: n)
                }
            }
        }
        return out
    }
}

/// Part of the audio that `LogMel.energies` reads: `samples` are audio samples `offset ..< offset + samples.count`
/// of a signal `audioLength` samples long, followed by `padding` zeros.
struct SignalWindow {
    let samples: UnsafeBufferPointer<Float>
    let offset: Int
    let audioLength: Int
    let padding: Int

    /// One past the last audio sample held.
    var end: Int { offset + samples.count }

    /// Sample `index` of the padded signal (`audioLength + padding` long), reflected into it at both ends.
    func sample(atPaddedIndex index: Int) -> Float {
        let length = audioLength + padding
        if length == 1 { return audioLength == 0 ? 0 : samples[0 - offset] }
        let period = 2 * (length - 1)
        var i = ((index % period) + period) % period
        if i >= length { i = period - i }
        return i < audioLength ? samples[i - offset] : 0
    }
}
