import CFFmpeg

/// Conversion to any sample rate and channel count, in `Float`.
extension AudioConverter {
    /// Creates a converter from interleaved `Float` input to interleaved `Float` output at `outputSampleRate` with
    /// `outputChannelCount` channels.
    ///
    /// Channels, when `channelMatrix` is nil: equal counts map one to one; a mono input goes to every output channel
    /// at full level; a mono output is the mean of the input channels; otherwise libswresample's standard mix of
    /// FFmpeg's default layouts for the two counts applies (5.1 to stereo folds the centre and surrounds into left and
    /// right), scaled so that no output channel's gains add up to more than 1. Counts without a standard layout are
    /// mapped channel n to channel n, with silence where the input has no channel n.
    ///
    /// - Parameters:
    ///   - inputSampleRate: Input sample rate in hertz; must be positive.
    ///   - inputChannelCount: Channels per input frame, 1...64.
    ///   - outputSampleRate: Output sample rate in hertz; must be positive.
    ///   - outputChannelCount: Channels per output frame, 1...64.
    ///   - channelMatrix: Gains from input to output channels, `channelMatrix[output][input]`: `outputChannelCount`
    ///     rows of `inputChannelCount` finite gains. Nil for the mapping above.
    /// - Throws: `AudioSourceError.conversionFailed` when a rate or channel count is out of range or the matrix does not
    ///   fit them.
    public convenience init(
        inputSampleRate: Int, inputChannelCount: Int, outputSampleRate: Int, outputChannelCount: Int,
        channelMatrix: [[Double]]? = nil
    ) throws {
        try Self.validate(inputSampleRate: inputSampleRate, inputChannelCount: inputChannelCount)
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        av_channel_layout_default(&layout, Int32(inputChannelCount))
        try self.init(
            inputSampleRate: inputSampleRate, channelLayout: &layout, sampleFormat: AV_SAMPLE_FMT_FLT,
            output: .float(sampleRate: outputSampleRate, channelCount: outputChannelCount, channelMatrix: channelMatrix))
    }

    /// Throws `AudioSourceError.conversionFailed` for an output rate or channel count out of range, or a matrix that
    /// does not map `inputChannelCount` channels to `outputChannelCount`.
    static func validate(outputSampleRate: Int, outputChannelCount: Int, channelMatrix: [[Double]]?, inputChannelCount: Int) throws {
        guard outputSampleRate > 0, outputSampleRate <= Int(Int32.max) else {
            throw AudioSourceError.conversionFailed(reason: "The output sample rate \(outputSampleRate) Hz is not positive.")
        }
        guard (1...maximumChannelCount).contains(outputChannelCount) else {
            throw AudioSourceError.conversionFailed(
                reason: "The output has \(outputChannelCount) channels; libswresample makes 1 to \(maximumChannelCount).")
        }
        if let channelMatrix,
           let problem = ChannelMatrix.problem(with: channelMatrix, inputs: inputChannelCount, outputs: outputChannelCount) {
            throw AudioSourceError.conversionFailed(reason: problem)
        }
    }

    /// A context from `channelLayout` and `sampleFormat` to packed `Float` at `outputSampleRate` with
    /// `outputChannelCount` channels, mixed by `channelMatrix` (nil: `ChannelMatrix.standard`).
    static func makeFloatContext(
        inputSampleRate: Int, channelLayout: UnsafePointer<AVChannelLayout>, sampleFormat: AVSampleFormat,
        outputSampleRate: Int, outputChannelCount: Int, channelMatrix: [[Double]]?
    ) throws -> OpaquePointer {
        var inputLayout = AVChannelLayout()
        var outputLayout = AVChannelLayout()
        defer {
            av_channel_layout_uninit(&inputLayout)
            av_channel_layout_uninit(&outputLayout)
        }
        copyInputLayout(channelLayout, into: &inputLayout)
        let inputCount = Int(inputLayout.nb_channels)
        if outputChannelCount == inputCount {
            // The same channels in the same order: nothing to mix unless the matrix says so.
            _ = av_channel_layout_copy(&outputLayout, &inputLayout)
        } else {
            av_channel_layout_default(&outputLayout, Int32(outputChannelCount))
        }
        let layoutsAreStandard = inputLayout.order == AV_CHANNEL_ORDER_NATIVE && outputLayout.order == AV_CHANNEL_ORDER_NATIVE
        let matrix = channelMatrix
            ?? ChannelMatrix.standard(inputs: inputCount, outputs: outputChannelCount, layoutsAreStandard: layoutsAreStandard)

        var context: OpaquePointer?
        var status = swr_alloc_set_opts2(
            &context,
            &outputLayout, AV_SAMPLE_FMT_FLT, Int32(outputSampleRate),
            &inputLayout, sampleFormat, Int32(inputSampleRate),
            0, nil
        )
        if status >= 0 {
            status = setMixing(of: context, matrix: matrix, inputCount: inputCount)
        }
        if status >= 0 {
            status = swr_init(context)
        }
        guard status >= 0, let context else {
            swr_free(&context)
            throw refusal(status, channelCount: inputCount, sampleFormat: sampleFormat, sampleRate: inputSampleRate)
        }
        return context
    }

    /// Gives libswresample `matrix` (unless it changes nothing), or, when it is nil, caps its standard mix so that no
    /// output channel's gains add up to more than 1 (in `Float` it leaves them unscaled otherwise).
    private static func setMixing(of context: OpaquePointer?, matrix: [[Double]]?, inputCount: Int) -> Int32 {
        guard let matrix else {
            return av_opt_set_double(UnsafeMutableRawPointer(context), "rematrix_maxval", 1, 0)
        }
        guard !ChannelMatrix.isIdentity(matrix) else { return 0 }
        return ChannelMatrix.flattened(matrix).withUnsafeBufferPointer {
            swr_set_matrix(context, $0.baseAddress, Int32(inputCount))
        }
    }
}
