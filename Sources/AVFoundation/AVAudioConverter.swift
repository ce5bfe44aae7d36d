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

/// Converts linear PCM between sample types, layouts, channel counts and, through AuralAudio's libswresample
/// converter, sample rates.
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
/// as Apple's does; `convert(to:error:withInputFrom:)` also changes the rate. Integer samples are scaled by
/// 2^(bits-1), rounded to nearest and clipped. Channels: equal counts map one to one; a mono input goes to every
/// output channel; with `downmix` true, a mono output is the mean of the input channels; otherwise (Apple's default)
/// channels are remapped: output channel n is input channel n, or silence when the input has no channel n.
///
/// Differences from Apple's, from AuralAudio: AuralAudio's resampler (`AudioConverter`, libswresample) produces 16 kHz
/// only, so a change of rate is possible only to 16 kHz (any input rate, any channel count: each output channel is
/// resampled on its own), and `init(from:to:)` returns nil for a change to any other rate. Resampled samples are
/// quantized to 1/32768 steps (AuralAudio resamples through 16-bit integers, as faster-whisper does). The resampler
/// aligns its output with the input's time zero, like `.normal` priming, whatever `primeMethod` says. Compressed
/// formats are not converted (`.otherFormat` gives nil).
public class AVAudioConverter: NSObject {
    /// The format of the input buffers.
    public let inputFormat: AVAudioFormat
    /// The format of the output buffers.
    public let outputFormat: AVAudioFormat
    /// How the sample rate converter primes (kept for compatibility; see the type's note).
    public var primeMethod: AVAudioConverterPrimeMethod = .normal
    /// Whether a mono output mixes the input channels (true) instead of taking the first one (false, the default).
    public var downmix = false

    /// Output converted but not yet returned, one array per output channel, from `pendingStart` on.
    private var pending: [[Float]]
    private var pendingStart = 0
    /// One mono 16 kHz resampler per output channel when the rates differ.
    private var resamplers: [AudioConverter] = []
    private var inputEnded = false
    private var endReported = false

    /// A converter from `fromFormat` to `toFormat`; nil when the conversion is not possible: a format that is not
    /// one of the common PCM formats, or a change of sample rate to anything but 16 kHz (see the type's note).
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard fromFormat.commonFormat != .otherFormat, toFormat.commonFormat != .otherFormat,
              fromFormat.channelCount > 0, toFormat.channelCount > 0, fromFormat.sampleRate > 0, toFormat.sampleRate > 0
        else { return nil }
        if fromFormat.sampleRate != toFormat.sampleRate {
            guard toFormat.sampleRate == Double(AudioConverter.outputSampleRate),
                  fromFormat.sampleRate == fromFormat.sampleRate.rounded(), fromFormat.sampleRate < Double(Int32.max),
                  (try? AudioConverter(inputSampleRate: Int(fromFormat.sampleRate), inputChannelCount: 1)) != nil
            else { return nil }
        }
        inputFormat = fromFormat
        outputFormat = toFormat
        pending = Array(repeating: [], count: Int(toFormat.channelCount))
        super.init()
        reset()
    }

    /// Forgets the stream so far (what the resampler holds, what was not yet returned), to convert a new one.
    public func reset() {
        pending = Array(repeating: [], count: Int(outputFormat.channelCount))
        pendingStart = 0
        inputEnded = false
        endReported = false
        resamplers = []
        guard inputFormat.sampleRate != outputFormat.sampleRate else { return }
        resamplers = (0..<Int(outputFormat.channelCount)).compactMap { _ in
            try? AudioConverter(inputSampleRate: Int(inputFormat.sampleRate), inputChannelCount: 1)
        }
    }

    /// Converts all of `inputBuffer`'s frames into `outputBuffer` at the same sample rate; `outputBuffer.frameLength`
    /// becomes the input's.
    /// - Throws: -50 when a buffer's format is not the converter's, the output is too small, or the rates differ
    ///   (use `convert(to:error:withInputFrom:)` for that, as on Apple).
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
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
            for (channel, plane) in mapChannels(of: inputBuffer).enumerated() {
                plane.withUnsafeBufferPointer { outputBuffer.store(channel: channel, at: 0, count: frames, from: $0.baseAddress!) }
            }
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
                accept(buffer)
            case .noDataNow:
                return .inputRanDry
            case .endOfStream:
                if let buffer = input as? AVAudioPCMBuffer, buffer.frameLength > 0 {
                    try check(input: buffer)
                    accept(buffer)
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

    /// Maps the buffer's channels, resamples them if the rates differ, and queues the result.
    private func accept(_ buffer: AVAudioPCMBuffer) {
        let planes = mapChannels(of: buffer)
        for channel in planes.indices {
            pending[channel] += resamplers.isEmpty ? planes[channel] : resamplers[channel].convert(planes[channel])
        }
    }

    /// Drains the resamplers after the last input.
    private func finishStream() {
        inputEnded = true
        for (channel, resampler) in resamplers.enumerated() { pending[channel] += resampler.flush() }
    }

    /// Moves up to `maximum` queued frames into `output` at frame `frame`; returns how many.
    private func drainPending(into output: AVAudioPCMBuffer, at frame: Int, maximum: Int) -> Int {
        let count = min(maximum, (pending.first?.count ?? 0) - pendingStart)
        guard count > 0 else { return 0 }
        for channel in pending.indices {
            pending[channel].withUnsafeBufferPointer {
                output.store(channel: channel, at: frame, count: count, from: $0.baseAddress! + pendingStart)
            }
        }
        pendingStart += count
        if pendingStart == pending[0].count {
            for channel in pending.indices { pending[channel].removeAll(keepingCapacity: true) }
            pendingStart = 0
        }
        return count
    }

    /// The buffer's valid frames as one `Float` array per output channel (see the type's note on channels).
    private func mapChannels(of buffer: AVAudioPCMBuffer) -> [[Float]] {
        let frames = 0..<Int(buffer.frameLength)
        let inputs = Int(buffer.format.channelCount)
        let outputs = Int(outputFormat.channelCount)
        if inputs == 1 || inputs == outputs {
            return (0..<outputs).map { buffer.floats(channel: inputs == 1 ? 0 : $0, frames: frames) }
        }
        if downmix, outputs == 1 {
            var sum = [Float](repeating: 0, count: frames.count)
            for channel in 0..<inputs {
                for (index, sample) in buffer.floats(channel: channel, frames: frames).enumerated() { sum[index] += sample }
            }
            return [sum.map { $0 / Float(inputs) }]
        }
        return (0..<outputs).map {
            $0 < inputs ? buffer.floats(channel: $0, frames: frames) : [Float](repeating: 0, count: frames.count)
        }
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
