import CFFmpeg
import Foundation

/// Converts audio of any sample rate and channel count to what Whisper takes, 16 kHz mono `Float` samples, or to
/// `Float` samples at any other rate and channel count.
///
/// ```swift
/// let converter = try AudioConverter(inputSampleRate: 48_000, inputChannelCount: 2)
/// var mono16k = converter.convert(firstInterleavedBuffer)
/// mono16k += converter.convert(secondInterleavedBuffer)
/// mono16k += converter.flush()
///
/// let toCD = try AudioConverter(inputSampleRate: 16_000, inputChannelCount: 1, outputSampleRate: 44_100, outputChannelCount: 2)
/// let stereo44k = toCD.convert(mono16k) + toCD.flush()    // interleaved left, right, left, …
/// ```
///
/// Whisper's conversion (`init(inputSampleRate:inputChannelCount:)`) is libswresample's, done exactly as faster-whisper
/// does it (PyAV's
/// `AudioResampler(format: "s16", layout: "mono", rate: 16000)` with default options): downmix, resample
/// and quantise to 16-bit mono, then divide by 32768. The output is bit-identical to faster-whisper's
/// `decode_audio` of a 32-bit float WAV holding the same samples (and of a 16-bit WAV, when the floats are
/// its samples divided by 32768), so transcripts can be compared token for token. `AudioFileLoader`
/// gives every WAV encoding to libswresample in FFmpeg's own decoded format, so whole files match too.
///
/// The conversion to any rate and channel count
/// (`init(inputSampleRate:inputChannelCount:outputSampleRate:outputChannelCount:channelMatrix:)`) is libswresample's
/// with its default filter too, in `Float` from end to end: the output is not quantised, and not clipped.
///
/// It is streaming: the resampler keeps a few input samples of history between calls, so converting a
/// signal in pieces gives the same samples as converting it at once, once `flush()` has drained the tail.
///
/// - Note: Not thread-safe. Use one converter from one task at a time; it owns a `SwrContext` and frees
///   it when released.
public final class AudioConverter {
    /// The sample rate Whisper takes, which `init(inputSampleRate:inputChannelCount:)` converts to, in hertz.
    public static let outputSampleRate = 16_000

    /// The largest channel count libswresample accepts.
    static let maximumChannelCount = 64

    /// Sample rate of the input, in hertz.
    public let inputSampleRate: Int
    /// Number of interleaved channels in the input.
    public let inputChannelCount: Int
    /// Sample rate of the output, in hertz (16,000 for Whisper's conversion).
    public let outputSampleRate: Int
    /// Number of interleaved channels in the output (1 for Whisper's conversion).
    public let outputChannelCount: Int

    /// What a converter makes.
    enum Output {
        /// 16 kHz mono through 16-bit integers, as faster-whisper converts.
        case whisper
        /// `Float` at this rate and channel count, the channels mapped by `channelMatrix` (`gains[output][input]`),
        /// or by `ChannelMatrix.standard` when it is nil.
        case float(sampleRate: Int, channelCount: Int, channelMatrix: [[Double]]?)
    }

    private let sampleFormat: AVSampleFormat
    /// Whether the output goes through 16-bit integers (Whisper's conversion) rather than staying `Float`.
    private let quantizes: Bool
    private var context: OpaquePointer?

    /// Creates a converter for interleaved `Float` input in -1...1 at the given rate and channel count.
    ///
    /// Channels are taken in FFmpeg's default order for that count (mono, stereo, 2.1, quad, …) and mixed
    /// down with libswresample's default matrix.
    ///
    /// - Parameters:
    ///   - inputSampleRate: Input sample rate in hertz; must be positive.
    ///   - inputChannelCount: Channels per frame, 1...64.
    /// - Throws: `AudioSourceError.conversionFailed` when the rate or channel count is out of range.
    public convenience init(inputSampleRate: Int, inputChannelCount: Int) throws {
        try self.init(
            inputSampleRate: inputSampleRate, inputChannelCount: inputChannelCount,
            sampleFormat: .float32, channelMask: nil
        )
    }

    /// Creates a converter for interleaved `Float` input in `format`.
    ///
    /// - Throws: `AudioSourceError.conversionFailed` when the rate or channel count is out of range.
    public convenience init(inputFormat: AudioFormat) throws {
        try self.init(inputSampleRate: inputFormat.sampleRate, inputChannelCount: inputFormat.channelCount)
    }

    /// Creates a converter for input in one of the layouts FFmpeg's PCM decoders produce.
    ///
    /// `channelMask` is a WAVE_FORMAT_EXTENSIBLE speaker mask; it is used when it names exactly
    /// `inputChannelCount` speakers, as FFmpeg does, and otherwise the default layout for the count is used.
    convenience init(inputSampleRate: Int, inputChannelCount: Int, sampleFormat: PCMSampleFormat, channelMask: UInt32?) throws {
        try Self.validate(inputSampleRate: inputSampleRate, inputChannelCount: inputChannelCount)
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        if let channelMask, channelMask.nonzeroBitCount == inputChannelCount {
            _ = av_channel_layout_from_mask(&layout, UInt64(channelMask))
        } else {
            av_channel_layout_default(&layout, Int32(inputChannelCount))
        }
        try self.init(inputSampleRate: inputSampleRate, channelLayout: &layout, sampleFormat: sampleFormat.ffmpegFormat)
    }

    /// Creates a converter for frames as an FFmpeg decoder gives them: any sample format, packed or planar,
    /// in `channelLayout` (an unspecified order means FFmpeg's default order for the channel count), to `output`.
    init(
        inputSampleRate: Int, channelLayout: UnsafePointer<AVChannelLayout>, sampleFormat: AVSampleFormat,
        output: Output = .whisper
    ) throws {
        let channelCount = Int(channelLayout.pointee.nb_channels)
        try Self.validate(inputSampleRate: inputSampleRate, inputChannelCount: channelCount)
        self.inputSampleRate = inputSampleRate
        self.inputChannelCount = channelCount
        self.sampleFormat = sampleFormat
        switch output {
        case .whisper:
            (outputSampleRate, outputChannelCount, quantizes) = (Self.outputSampleRate, 1, true)
            self.context = try Self.makeContext(
                inputSampleRate: inputSampleRate, channelLayout: channelLayout, sampleFormat: sampleFormat
            )
        case .float(let sampleRate, let channels, let matrix):
            try Self.validate(outputSampleRate: sampleRate, outputChannelCount: channels, channelMatrix: matrix, inputChannelCount: channelCount)
            (outputSampleRate, outputChannelCount, quantizes) = (sampleRate, channels, false)
            self.context = try Self.makeFloatContext(
                inputSampleRate: inputSampleRate, channelLayout: channelLayout, sampleFormat: sampleFormat,
                outputSampleRate: sampleRate, outputChannelCount: channels, channelMatrix: matrix
            )
        }
    }

    static func validate(inputSampleRate: Int, inputChannelCount: Int) throws {
        guard inputSampleRate > 0, inputSampleRate <= Int(Int32.max) else {
            throw AudioSourceError.conversionFailed(reason: "The input sample rate \(inputSampleRate) Hz is not positive.")
        }
        guard (1...Self.maximumChannelCount).contains(inputChannelCount) else {
            throw AudioSourceError.conversionFailed(
                reason: "The input has \(inputChannelCount) channels; libswresample takes 1 to \(Self.maximumChannelCount)."
            )
        }
    }

    deinit {
        swr_free(&context)
    }

    /// Converts the next piece of interleaved input and returns the output frames ready so far, interleaved.
    ///
    /// When the rates differ, the output lags the input by the resampler's filter delay (a few milliseconds); call
    /// `flush()` after the last piece to get the rest. At equal rates every frame comes out at once.
    ///
    /// - Parameter interleaved: Frames of `inputChannelCount` samples each, in -1...1. The count must be a
    ///   multiple of `inputChannelCount`.
    /// - Returns: Frames of `outputChannelCount` samples at `outputSampleRate`. Whisper's conversion gives 16 kHz
    ///   mono samples in -1..<1, quantised to 1/32768 steps (values outside -1...1 are clipped); the other
    ///   conversions give `Float` samples as computed, neither quantised nor clipped.
    public func convert(_ interleaved: [Float]) -> [Float] {
        precondition(sampleFormat == AV_SAMPLE_FMT_FLT, "This converter was not made for interleaved Float input")
        precondition(
            interleaved.count % inputChannelCount == 0,
            "\(interleaved.count) samples is not a whole number of \(inputChannelCount)-channel frames"
        )
        return interleaved.withUnsafeBytes { convert(rawFrames: $0) }
    }

    /// Drains the resampler's remaining samples after the last input.
    ///
    /// Safe to call more than once; later calls return an empty array. The converter must not be given
    /// more input afterwards.
    public func flush() -> [Float] {
        var output: [Float] = []
        while true {
            let drained = run(planes: nil, frameCount: 0)
            if drained.isEmpty { return output }
            output += drained
        }
    }

    /// Converts interleaved frames stored in this converter's (packed) sample format.
    func convert(rawFrames: UnsafeRawBufferPointer) -> [Float] {
        precondition(av_sample_fmt_is_planar(sampleFormat) == 0, "Planar input goes through convert(planes:frameCount:)")
        let frameBytes = Int(av_get_bytes_per_sample(sampleFormat)) * inputChannelCount
        precondition(rawFrames.count % frameBytes == 0, "Input is not a whole number of frames")
        guard let base = rawFrames.baseAddress else { return [] }
        // libswresample counts frames in Int32, so long input goes in pieces.
        let framesPerCall = 1 << 20
        var output: [Float] = []
        var frame = 0
        while frame < rawFrames.count / frameBytes {
            let frames = min(framesPerCall, rawFrames.count / frameBytes - frame)
            var plane: UnsafePointer<UInt8>? = (base + frame * frameBytes).assumingMemoryBound(to: UInt8.self)
            output += withUnsafePointer(to: &plane) { run(planes: $0, frameCount: frames) }
            frame += frames
        }
        return output
    }

    /// Converts `frameCount` frames given as FFmpeg gives them: one pointer for packed formats, one per
    /// channel for planar ones.
    func convert(planes: UnsafePointer<UnsafePointer<UInt8>?>, frameCount: Int) -> [Float] {
        run(planes: planes, frameCount: frameCount)
    }

    /// One `swr_convert` call: `planes` nil drains the resampler.
    private func run(planes: UnsafePointer<UnsafePointer<UInt8>?>?, frameCount: Int) -> [Float] {
        let capacity = Int(swr_get_out_samples(context, Int32(frameCount)))
        guard capacity > 0 else { return [] }
        guard !quantizes else {
            var pcm = [Int16](repeating: 0, count: capacity)
            let produced = pcm.withUnsafeMutableBytes { swrConvert(into: $0, capacity: capacity, planes: planes, frameCount: frameCount) }
            return pcm[0..<Int(produced)].map { Float($0) / 32768 }
        }
        var samples = [Float](repeating: 0, count: capacity * outputChannelCount)
        let produced = samples.withUnsafeMutableBytes { swrConvert(into: $0, capacity: capacity, planes: planes, frameCount: frameCount) }
        samples.removeSubrange((Int(produced) * outputChannelCount)...)
        return samples
    }

    /// Runs `swr_convert` into packed output of room for `capacity` frames; returns the frames it wrote.
    private func swrConvert(
        into outBytes: UnsafeMutableRawBufferPointer, capacity: Int, planes: UnsafePointer<UnsafePointer<UInt8>?>?, frameCount: Int
    ) -> Int32 {
        var outPlane: UnsafeMutablePointer<UInt8>? = outBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let produced = withUnsafeMutablePointer(to: &outPlane) { outPlanes in
            swr_convert(
                context, outPlanes, Int32(capacity),
                UnsafeMutablePointer(mutating: planes), planes == nil ? 0 : Int32(frameCount))
        }
        // swr_convert only fails on invalid arguments, which the initializer and the preconditions rule out.
        precondition(produced >= 0, "swr_convert failed with code \(produced)")
        return produced
    }

    private static func makeContext(
        inputSampleRate: Int, channelLayout: UnsafePointer<AVChannelLayout>, sampleFormat: AVSampleFormat
    ) throws -> OpaquePointer {
        var inputLayout = AVChannelLayout()
        var outputLayout = AVChannelLayout()
        defer {
            av_channel_layout_uninit(&inputLayout)
            av_channel_layout_uninit(&outputLayout)
        }
        copyInputLayout(channelLayout, into: &inputLayout)
        av_channel_layout_default(&outputLayout, 1)
        let channelCount = Int(inputLayout.nb_channels)

        var context: OpaquePointer?
        var status = swr_alloc_set_opts2(
            &context,
            &outputLayout, AV_SAMPLE_FMT_S16, Int32(outputSampleRate),
            &inputLayout, sampleFormat, Int32(inputSampleRate),
            0, nil
        )
        let packed = av_get_packed_sample_fmt(sampleFormat)
        if status >= 0, packed == AV_SAMPLE_FMT_S16, inputSampleRate != outputSampleRate {
            // libswresample 4 (FFmpeg 5) resamples 16-bit input with 16-bit filters; the libswresample 6
            // that PyAV bundles resamples it in float. Pin float so both give faster-whisper's samples.
            status = av_opt_set_sample_fmt(UnsafeMutableRawPointer(context), "internal_sample_fmt", AV_SAMPLE_FMT_FLTP, 0)
        }
        if status >= 0 {
            status = swr_init(context)
        }
        guard status >= 0, let context else {
            swr_free(&context)
            throw refusal(status, channelCount: channelCount, sampleFormat: sampleFormat, sampleRate: inputSampleRate)
        }
        return context
    }

    /// `channelLayout` as libswresample takes it: an unspecified order becomes FFmpeg's default order for the count.
    static func copyInputLayout(_ channelLayout: UnsafePointer<AVChannelLayout>, into inputLayout: inout AVChannelLayout) {
        if channelLayout.pointee.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, channelLayout.pointee.nb_channels)
        } else {
            _ = av_channel_layout_copy(&inputLayout, channelLayout)
        }
    }

    /// The error for a context libswresample would not set up.
    static func refusal(_ status: Int32, channelCount: Int, sampleFormat: AVSampleFormat, sampleRate: Int) -> AudioSourceError {
        let name = av_get_sample_fmt_name(sampleFormat).map { String(cString: $0) } ?? "unknown"
        return AudioSourceError.conversionFailed(
            reason: "libswresample refused \(channelCount)-channel \(name) audio at \(sampleRate) Hz (\(errorText(status)))."
        )
    }

    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// How one sample is stored in memory, as FFmpeg's PCM decoders hand samples to the resampler.
enum PCMSampleFormat: Sendable, CustomStringConvertible {
    /// 8-bit unsigned, 128 is silence.
    case unsignedInt8
    /// 16-bit signed, native byte order.
    case signedInt16
    /// 32-bit signed, native byte order (24-bit WAV samples are widened to this, shifted left by 8).
    case signedInt32
    /// 32-bit IEEE float, native byte order.
    case float32
    /// 64-bit IEEE float, native byte order.
    case float64

    var bytesPerSample: Int {
        switch self {
        case .unsignedInt8: return 1
        case .signedInt16: return 2
        case .signedInt32, .float32: return 4
        case .float64: return 8
        }
    }

    var ffmpegFormat: AVSampleFormat {
        switch self {
        case .unsignedInt8: return AV_SAMPLE_FMT_U8
        case .signedInt16: return AV_SAMPLE_FMT_S16
        case .signedInt32: return AV_SAMPLE_FMT_S32
        case .float32: return AV_SAMPLE_FMT_FLT
        case .float64: return AV_SAMPLE_FMT_DBL
        }
    }

    var description: String {
        switch self {
        case .unsignedInt8: return "8-bit unsigned"
        case .signedInt16: return "16-bit signed"
        case .signedInt32: return "32-bit signed"
        case .float32: return "32-bit float"
        case .float64: return "64-bit float"
        }
    }
}
