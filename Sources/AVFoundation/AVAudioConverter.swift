import AuralAudio

/// How a sample rate converter fills the start and end of a stream (Apple's priming); see `AVAudioConverter.primeMethod`.
public enum AVAudioConverterPrimeMethod: Int, Sendable {
    /// Primes with leading and trailing input frames.
    case pre = 0
    /// Primes with trailing input frames only: the output starts with no delay (the default).
    case normal = 1
    /// No priming: leading and trailing frames are taken as silence.
    case none = 2
}

/// What an input block says about the buffer it returns.
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The returned buffer holds input.
    case haveData = 0
    /// No input for now; the converter returns what it has and may be called again later.
    case noDataNow = 1
    /// The stream has ended; the converter drains what it holds.
    case endOfStream = 2
}

/// What `convert(to:error:withInputFrom:)` achieved.
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer was filled to its capacity (or holds the last frames of a stream that ended).
    case haveData = 0
    /// The input block ran out of data for now; the output holds what could be converted (maybe nothing).
    case inputRanDry = 1
    /// The stream has ended and every frame has been returned; nothing was returned this time.
    case endOfStream = 2
    /// The conversion failed; the error says why.
    case error = 3
}

/// The block a converter calls for input: it gets the number of frames wanted (a hint) and sets the status.
public typealias AVAudioConverterInputBlock =
    (AVAudioPacketCount, UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

/// Converts linear PCM between sample types, layouts, channel counts and sample rates; AuralAudio's converter
/// (`AudioConverter`, libswresample) changes the rate and the channels.
///
/// ```swift
/// let converter = AVAudioConverter(from: tapFormat, to: AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!)!
/// var error: NSError?
/// var given = false
/// let status = converter.convert(to: output, error: &error) { _, inputStatus in
///     if given { inputStatus.pointee = .noDataNow; return nil }
///     given = true
///     inputStatus.pointee = .haveData
///     return tapBuffer
/// }
/// ```
///
/// `convert(to:from:)` converts sample type, interleaving and channel count at one rate and refuses a change of rate,
/// as Apple's does; `convert(to:error:withInputFrom:)` also changes the rate, from any rate to any other. Integer samples
/// are scaled by 2^(bits-1), rounded to nearest and clipped. Channels: equal counts map one to one; a mono input goes to
/// every output channel; with `downmix` true, a mono output is the mean of the input channels; otherwise (Apple's
/// default) channels are remapped: output channel n is input channel n, or silence when the input has no channel n.
///
/// Differences from Apple's, from AuralAudio: the resampler is libswresample's default filter, computing in `Float`;
/// it aligns its output with the input's time zero, like `.normal` priming, whatever `primeMethod` says. A change of
/// rate or channel count takes whole numbers of hertz and at most 64 channels on each side (`init(from:to:)` returns
/// nil otherwise). Changing `downmix` in the middle of a stream that changes rate restarts the resampler there.
/// Compressed formats are not converted (`.otherFormat` gives nil).
public class AVAudioConverter: NSObject {
    /// The format of the input buffers.
    public let inputFormat: AVAudioFormat
    /// The format of the output buffers.
    public let outputFormat: AVAudioFormat
    /// How the sample rate converter primes (kept for compatibility; see the type's note).
    public var primeMethod: AVAudioConverterPrimeMethod = .normal
    /// Whether a mono output mixes the input channels (true) instead of taking the first one (false, the default).
    public var downmix = false {
        didSet {
            if downmix != oldValue, outputFormat.channelCount == 1, inputFormat.channelCount > 1 { remakeMixer() }
        }
    }

    /// Output converted but not yet returned, interleaved, from frame `pendingStart` on.
    private var pending: [Float] = []
    private var pendingStart = 0
    /// AuralAudio's converter, when the rate or the channel count changes.
    private var mixer: AudioConverter?
    private var inputEnded = false
    private var endReported = false

    private var changesRate: Bool { inputFormat.sampleRate != outputFormat.sampleRate }

    /// A converter from `fromFormat` to `toFormat`; nil when the conversion is not possible: a format that is not one of
    /// the common PCM formats, or a change of rate or channel count that AuralAudio's converter refuses (see the type's
    /// note).
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard fromFormat.commonFormat != .otherFormat, toFormat.commonFormat != .otherFormat,
              fromFormat.channelCount > 0, toFormat.channelCount > 0, fromFormat.sampleRate > 0, toFormat.sampleRate > 0
        else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        super.init()
        do {
            mixer = try makeMixer()
        } catch {
            return nil
        }
    }

    /// Forgets the stream so far (what the resampler holds, what was not yet returned), to convert a new one.
    public func reset() {
        pending = []
        pendingStart = 0
        inputEnded = false
        endReported = false
        mixer = try? makeMixer()  // it was made once already with these formats, in init
    }

    /// Converts all of `inputBuffer`'s frames into `outputBuffer` at the same sample rate; `outputBuffer.frameLength`
    /// becomes the input's.
    /// - Throws: -50 when a buffer's format is not the converter's, the output is too small, or the rates differ
    ///   (use `convert(to:error:withInputFrom:)` for that, as on Apple).
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard !changesRate else {
            throw AVAudioError.parameter(
                "convert(to:from:) does not convert sample rates.",
                reason: "The converter goes from \(inputFormat.sampleRate) Hz to \(outputFormat.sampleRate) Hz.",
                suggestion: "Use convert(to:error:withInputFrom:), which resamples.")
        }
        try check(input: inputBuffer)
        try check(output: outputBuffer)
        let frames = Int(inputBuffer.frameLength)
        guard frames <= Int(outputBuffer.frameCapacity) else {
            throw AVAudioError.parameter(
                "The output buffer is too small.",
                reason: "It has room for \(outputBuffer.frameCapacity) frames; the input has \(frames).")
        }
        if inputBuffer.format.isCompatible(with: outputBuffer.format) {
            outputBuffer.copyFrames(0..<frames, of: inputBuffer, to: 0)
        } else if frames > 0 {
            // At one rate the mixer holds nothing back: every frame comes out at once.
            outputBuffer.storeInterleaved(converted(inputBuffer), at: 0)
        }
        outputBuffer.frameLength = AVAudioFrameCount(frames)
    }

    /// Fills `outputBuffer` (an `AVAudioPCMBuffer` of `outputFormat`) with converted frames, calling `inputBlock` for
    /// input as often as needed; `outputBuffer.frameLength` says how many frames it holds afterwards.
    ///
    /// - Returns: `.haveData` when the buffer is full (or holds a stream's last frames), `.inputRanDry` when the block
    ///   said `.noDataNow`, `.endOfStream` once a stream that ended has been returned entirely (call `reset()` to start
    ///   another), `.error` with `outError` set when a buffer is of the wrong format.
    public func convert(to outputBuffer: AVAudioBuffer, error outError: UnsafeMutablePointer<NSError?>?,
                        withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        do {
            guard let output = outputBuffer as? AVAudioPCMBuffer else {
                throw AVAudioError.parameter("The output buffer is not a PCM buffer.", reason: "Only AVAudioPCMBuffer is supported.")
            }
            try check(output: output)
            return try fill(output, from: inputBlock)
        } catch {
            outError?.pointee = error as NSError
            return .error
        }
    }

    private func fill(_ output: AVAudioPCMBuffer, from inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        output.frameLength = 0
        if endReported { return .endOfStream }
        let capacity = Int(output.frameCapacity)
        var filled = 0
        while true {
            filled += drainPending(into: output, at: filled, maximum: capacity - filled)
            output.frameLength = AVAudioFrameCount(filled)
            if filled == capacity { return .haveData }
            if inputEnded {
                endReported = filled == 0
                return filled == 0 ? .endOfStream : .haveData
            }
            var status = AVAudioConverterInputStatus.haveData
            let input = inputBlock(framesWanted(forOutput: capacity - filled), &status)
            switch status {
            case .haveData:
                guard let buffer = input as? AVAudioPCMBuffer else {
                    throw AVAudioError.parameter("The input block returned no buffer.", reason: "It said .haveData but returned nil.")
                }
                try check(input: buffer)
                if buffer.frameLength == 0 { return .inputRanDry }
                pending += converted(buffer)
            case .noDataNow:
                return .inputRanDry
            case .endOfStream:
                if let buffer = input as? AVAudioPCMBuffer, buffer.frameLength > 0 {
                    try check(input: buffer)
                    pending += converted(buffer)
                }
                finishStream()
            }
        }
    }

    /// Input frames that give about `outputFrames` frames of output.
    private func framesWanted(forOutput outputFrames: Int) -> AVAudioPacketCount {
        let ratio = inputFormat.sampleRate / outputFormat.sampleRate
        return AVAudioPacketCount(clamping: max(1, Int((Double(outputFrames) * ratio).rounded(.up))))
    }

    /// The buffer's valid frames in the output's rate and channels, interleaved, as far as the mixer has them ready.
    private func converted(_ buffer: AVAudioPCMBuffer) -> [Float] {
        let samples = buffer.interleavedFloats(frames: 0..<Int(buffer.frameLength))
        return mixer?.convert(samples) ?? samples
    }

    /// Drains the resampler after the last input.
    private func finishStream() {
        inputEnded = true
        if changesRate, let mixer { pending += mixer.flush() }
    }

    /// Moves up to `maximum` queued frames into `output` at frame `frame`; returns how many.
    private func drainPending(into output: AVAudioPCMBuffer, at frame: Int, maximum: Int) -> Int {
        let channels = Int(outputFormat.channelCount)
        let count = min(maximum, pending.count / channels - pendingStart)
        guard count > 0 else { return 0 }
        pending.withUnsafeBufferPointer { samples in
            for channel in 0..<channels {
                output.store(channel: channel, at: frame, count: count, from: samples.baseAddress! + pendingStart * channels + channel,
                             sourceStride: channels)
            }
        }
        pendingStart += count
        if pendingStart * channels == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
        }
        return count
    }

    /// AuralAudio's converter for this conversion when it changes the rate or the channel count, else nil.
    private func makeMixer() throws -> AudioConverter? {
        let inputs = Int(inputFormat.channelCount), outputs = Int(outputFormat.channelCount)
        guard changesRate || inputs != outputs else { return nil }
        let (inputRate, outputRate) = try resamplerRates()
        return try AudioConverter(
            inputSampleRate: inputRate, inputChannelCount: inputs, outputSampleRate: outputRate, outputChannelCount: outputs,
            channelMatrix: channelMatrix(inputs: inputs, outputs: outputs))
    }

    /// A new mixer for a new `downmix`; a resampler's held-back frames are drained into the output first.
    private func remakeMixer() {
        if changesRate, !inputEnded, let mixer { pending += mixer.flush() }
        mixer = try? makeMixer()  // only the matrix differs from the mixer made in init
    }

    /// The rates to give libswresample: whole numbers of hertz when they differ; any equal pair when they do not (only
    /// the ratio counts, and then nothing is resampled).
    private func resamplerRates() throws -> (Int, Int) {
        let (input, output) = (inputFormat.sampleRate, outputFormat.sampleRate)
        guard changesRate else { return (16_000, 16_000) }
        guard input == input.rounded(), output == output.rounded(), input <= Double(Int32.max), output <= Double(Int32.max) else {
            throw AVAudioError.parameter("Cannot resample from \(input) Hz to \(output) Hz.", reason: "Rates must be whole numbers of hertz.")
        }
        return (Int(input), Int(output))
    }

    /// Apple's channel mapping as gains, `[output][input]` (see the type's note).
    private func channelMatrix(inputs: Int, outputs: Int) -> [[Double]] {
        if inputs == 1 { return Array(repeating: [1], count: outputs) }
        if downmix, outputs == 1 { return [Array(repeating: 1 / Double(inputs), count: inputs)] }
        return (0..<outputs).map { output in (0..<inputs).map { $0 == output ? 1 : 0 } }
    }

    private func check(input buffer: AVAudioPCMBuffer) throws {
        guard !buffer.format.isCompatible(with: inputFormat) else { return }
        throw AVAudioError.parameter(
            "The input buffer's format is not the converter's input format.",
            reason: "The buffer is \(buffer.format); the converter takes \(inputFormat).")
    }

    private func check(output buffer: AVAudioPCMBuffer) throws {
        guard !buffer.format.isCompatible(with: outputFormat) else { return }
        throw AVAudioError.parameter(
            "The output buffer's format is not the converter's output format.",
            reason: "The buffer is \(buffer.format); the converter makes \(outputFormat).")
    }
}
