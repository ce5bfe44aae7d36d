import CFFmpeg
import Foundation

/// Decodes the audio of any file FFmpeg's libraries read and converts it, piece by piece, to 16 kHz mono
/// (`Output.mono16k`, for Whisper) or to `Float` at the stream's own rate and channel count (`Output.streamFormat`,
/// for `AudioFileDecoder`).
///
/// It decodes the way faster-whisper's `decode_audio` does with PyAV, so transcripts stay token-exact:
/// - the first audio stream of the file (PyAV's `container.decode(audio=0)`), after
///   `avformat_find_stream_info`, as `av.open` does;
/// - every decoded frame, in order, through one libswresample context to 16-bit mono at 16 kHz (PyAV's
///   `AudioResampler(format="s16", layout="mono", rate=16000)`), ignoring timestamps (faster-whisper
///   clears them), then a flush of the decoder and of the resampler at the end; samples are the 16-bit
///   values divided by 32768.
///
/// The decoders themselves are Debian's FFmpeg 5.1, where faster-whisper's PyAV bundles FFmpeg 8.0: WAV,
/// FLAC and MP3 give the same bits; the float decoders (Opus, AAC, Vorbis) round differently, so some
/// samples differ by one 16-bit step; and 5.1 drops all of an Opus stream's pre-skip in WebM where 8.0
/// keeps 4.3 ms of it. None of these changed a token on the test files.
///
/// Differences, on damaged files only: faster-whisper stops at the first packet FFmpeg reports as invalid
/// data; this decoder skips such packets and goes on, as the `ffmpeg` tool does, and throws only when the
/// file gives no audio at all. A frame whose format differs from the first one (a stream that changes
/// rate or layout midway, which PyAV's resampler rejects) gets a new resampler after the old one is
/// drained.
///
/// In the stream's own format, the same packets and frames go through libswresample only to become interleaved
/// `Float`: the samples are the decoder's, channel for channel (see `AudioConverter`'s rule for equal counts). A frame
/// whose rate or channel count differs from the stream's, as opened, is converted to the stream's.
///
/// Memory is bounded: each `read` call decodes packets until about `minimumSampleCount` output samples are
/// ready, so only one chunk, one packet and one frame are held at a time.
///
/// - Note: Not thread-safe; use one decoder from one thread. Its calls block on file I/O and decoding, so
///   drive it from a dedicated thread, never from Swift's cooperative pool. It owns every FFmpeg object it
///   uses and frees them when released.
final class FFmpegDecoder {
    /// The file being decoded, for error messages.
    let path: String
    // Every other stored property has a default, so the object is whole once `path` and `output` are set: when the
    // initializer throws after that, deinit still runs and frees what was opened.

    /// The length of the audio stream in seconds, as the container states it (nil when it does not).
    private(set) var duration: TimeInterval?
    /// FFmpeg's name of the codec, such as "mp3" or "opus".
    private(set) var codecName = "unknown"
    /// Packets FFmpeg could not decode and that were skipped.
    private(set) var skippedPacketCount = 0
    /// What the decoder gives.
    let output: Output
    /// The output's sample rate in hertz: 16,000, or the stream's own.
    private(set) var sampleRate = AudioConverter.outputSampleRate
    /// The output's channel count: 1, or the stream's own.
    private(set) var channelCount = 1
    /// In the stream's own format, the stream's length in frames as the container states it (rounded down), when it
    /// does and the figure is not an estimate from the bit rate; nil otherwise.
    private(set) var statedFrameCount: Int?

    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var streamIndex: Int32 = -1
    private var converter: AudioConverter?
    /// The sample format, rate and channel layout `converter` was made for.
    private var converterInput: (format: Int32, sampleRate: Int32, layout: AVChannelLayout)?
    private var stage = Stage.reading
    private var producedSampleCount = 0
    private var firstError: String?

    /// The format the decoded audio is converted to.
    enum Output {
        /// 16 kHz mono, as faster-whisper converts it.
        case mono16k
        /// Interleaved `Float` at the stream's own sample rate and channel count.
        case streamFormat
    }

    private enum Stage {
        /// Reading packets from the file.
        case reading
        /// The file has ended; the decoder is being drained.
        case draining
        /// Everything has been returned.
        case finished
    }

    /// Whether FFmpeg's log, which is process-wide, is silenced; false puts back FFmpeg's default level (info).
    static var isLogQuiet: Bool {
        get { av_log_get_level() == AV_LOG_QUIET }
        set { av_log_set_level(newValue ? AV_LOG_QUIET : AV_LOG_INFO) }
    }

    /// Opens `url` and prepares the decoder of its first audio stream, for `output`.
    ///
    /// - Throws: `AudioSourceError.notAudio` when FFmpeg does not recognise the file, `.corruptFile` when
    ///   its header cannot be read, `.noAudioTrack` when it has no audio stream, `.unsupportedCodec` when
    ///   FFmpeg has no decoder for it, `.unreadableFile` on an I/O error.
    init(url: URL, output: Output = .mono16k) throws {
        path = url.path
        self.output = output
        var context: UnsafeMutablePointer<AVFormatContext>?
        let openStatus = avformat_open_input(&context, url.path, nil, nil)
        guard openStatus >= 0, let context else {
            throw Self.openError(openStatus, path: url.path)
        }
        formatContext = context

        let infoStatus = avformat_find_stream_info(context, nil)
        guard infoStatus >= 0 else {
            throw AudioSourceError.corruptFile(
                path: url.path, reason: "FFmpeg could not read the streams' parameters (\(Self.errorText(infoStatus))).")
        }
        let stream = try findAudioStream(in: context)
        duration = Self.duration(of: stream, in: context)
        try openCodec(of: stream)
        if output == .streamFormat {
            try adoptStreamFormat(of: stream, in: context)
        }
    }

    /// Finds the file's first audio stream and notes its index and codec name.
    private func findAudioStream(in context: UnsafeMutablePointer<AVFormatContext>) throws -> UnsafeMutablePointer<AVStream> {
        let streams = UnsafeBufferPointer(start: context.pointee.streams, count: Int(context.pointee.nb_streams))
        guard let index = streams.firstIndex(where: { $0?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }),
            let stream = streams[index]
        else {
            let kinds = streams.compactMap { $0.flatMap { av_get_media_type_string($0.pointee.codecpar.pointee.codec_type) } }
                .map { String(cString: $0) }
            throw AudioSourceError.noAudioTrack(path: path, streams: kinds)
        }
        streamIndex = Int32(index)
        codecName = avcodec_get_name(stream.pointee.codecpar.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
        return stream
    }

    /// Opens the decoder of `stream`, with a packet and a frame to decode through.
    private func openCodec(of stream: UnsafeMutablePointer<AVStream>) throws {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw AudioSourceError.unsupportedCodec(path: path, codec: codecName)
        }
        codecContext = avcodec_alloc_context3(codec)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard let codecContext, packet != nil, frame != nil else {
            throw AudioSourceError.conversionFailed(reason: "FFmpeg could not allocate a decoder (out of memory).")
        }
        var status = avcodec_parameters_to_context(codecContext, parameters)
        if status >= 0 {
            codecContext.pointee.pkt_timebase = stream.pointee.time_base
            status = avcodec_open2(codecContext, codec, nil)
        }
        guard status >= 0 else {
            throw AudioSourceError.corruptFile(
                path: path, reason: "FFmpeg could not open the \(codecName) decoder (\(Self.errorText(status))).")
        }
    }

    /// Takes the stream's rate, channel count and stated length as the output's.
    private func adoptStreamFormat(of stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>) throws {
        guard let codecContext, codecContext.pointee.sample_rate > 0, codecContext.pointee.ch_layout.nb_channels > 0 else {
            throw AudioSourceError.corruptFile(
                path: path, reason: "FFmpeg could not tell the \(codecName) stream's sample rate or channel count.")
        }
        sampleRate = Int(codecContext.pointee.sample_rate)
        channelCount = Int(codecContext.pointee.ch_layout.nb_channels)
        statedFrameCount = Self.statedFrameCount(of: stream, in: context, sampleRate: sampleRate)
    }

    deinit {
        if var converterInput { av_channel_layout_uninit(&converterInput.layout) }
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
    }

    /// Decodes until at least `minimumSampleCount` output samples are ready or the audio ends.
    ///
    /// - Returns: The next samples: at 16 kHz in -1..<1, or whole interleaved frames in the stream's format; nil
    ///   once everything has been returned.
    /// - Throws: `AudioSourceError.corruptFile` when the file ends without giving any audio although some
    ///   of its packets failed to decode, `.unreadableFile` on an I/O error while reading.
    func read(minimumSampleCount: Int) throws -> [Float]? {
        var output: [Float] = []
        while output.count < minimumSampleCount, stage != .finished {
            switch stage {
            case .reading:
                try readPacket(into: &output)
            case .draining:
                try drainDecoder(into: &output)
            case .finished:
                break
            }
        }
        producedSampleCount += output.count
        if output.isEmpty, stage == .finished {
            if producedSampleCount == 0, let firstError {
                throw AudioSourceError.corruptFile(path: path, reason: firstError)
            }
            return nil
        }
        return output
    }

    /// Reads one packet; decodes it when it belongs to the audio stream.
    private func readPacket(into output: inout [Float]) throws {
        let status = av_read_frame(formatContext, packet)
        defer { av_packet_unref(packet) }
        if status == cffmpeg_averror_eof() {
            stage = .draining
            _ = avcodec_send_packet(codecContext, nil)
            return
        }
        if status < 0 {
            if status == cffmpeg_averror_invaliddata() {
                // The demuxer cannot make sense of what follows; end as at the end of the file.
                noteError("FFmpeg could not read the file past a damaged part (\(Self.errorText(status))).")
                stage = .draining
                _ = avcodec_send_packet(codecContext, nil)
                return
            }
            throw AudioSourceError.unreadableFile(path: path, reason: "Reading failed: \(Self.errorText(status)).")
        }
        guard packet?.pointee.stream_index == streamIndex else { return }
        var sent = avcodec_send_packet(codecContext, packet)
        if sent == cffmpeg_averror_eagain() {
            // The decoder wants its frames taken first (every frame is taken after each packet, so this is
            // rare); then it accepts the packet.
            try receiveFrames(into: &output)
            sent = avcodec_send_packet(codecContext, packet)
        }
        if sent < 0 {
            skippedPacketCount += 1
            noteError("The \(codecName) decoder rejected the audio data (\(Self.errorText(sent))).")
            return
        }
        try receiveFrames(into: &output)
    }

    /// Takes the decoder's last frames after the end of the file, then drains the resampler.
    private func drainDecoder(into output: inout [Float]) throws {
        try receiveFrames(into: &output)
        if let converter { output += converter.flush() }
        stage = .finished
    }

    /// Converts every frame the decoder has ready.
    private func receiveFrames(into output: inout [Float]) throws {
        while true {
            let status = avcodec_receive_frame(codecContext, frame)
            if status == cffmpeg_averror_eagain() || status == cffmpeg_averror_eof() { return }
            if status < 0 {
                skippedPacketCount += 1
                noteError("The \(codecName) decoder failed (\(Self.errorText(status))).")
                return
            }
            defer { av_frame_unref(frame) }
            try convertFrame(into: &output)
        }
    }

    private func convertFrame(into output: inout [Float]) throws {
        guard let frame, frame.pointee.nb_samples > 0, let planes = frame.pointee.extended_data else { return }
        let format = frame.pointee.format
        let frameRate = frame.pointee.sample_rate
        var sameInput = false
        if let converterInput {
            sameInput = converterInput.format == format && converterInput.sampleRate == frameRate
                && withUnsafePointer(to: converterInput.layout) { av_channel_layout_compare($0, &frame.pointee.ch_layout) } == 0
        }
        if !sameInput {
            if let converter { output += converter.flush() }
            if var old = converterInput {
                av_channel_layout_uninit(&old.layout)
                converterInput = nil
            }
            converter = try makeConverter(for: frame)
            var layout = AVChannelLayout()
            _ = av_channel_layout_copy(&layout, &frame.pointee.ch_layout)
            converterInput = (format, frameRate, layout)
        }
        let planePointers = UnsafeRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        output += converter!.convert(planes: planePointers, frameCount: Int(frame.pointee.nb_samples))
    }

    /// A converter from `frame`'s format to the output's.
    private func makeConverter(for frame: UnsafeMutablePointer<AVFrame>) throws -> AudioConverter {
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let inputRate = Int(frame.pointee.sample_rate)
        switch output {
        case .mono16k:
            return try AudioConverter(inputSampleRate: inputRate, channelLayout: &frame.pointee.ch_layout, sampleFormat: format)
        case .streamFormat:
            return try AudioConverter(
                inputSampleRate: inputRate, channelLayout: &frame.pointee.ch_layout, sampleFormat: format,
                output: .float(sampleRate: sampleRate, channelCount: channelCount, channelMatrix: nil))
        }
    }

    private func noteError(_ message: String) {
        if firstError == nil { firstError = message }
    }

    /// The stream's duration, else the container's, in seconds.
    private static func duration(of stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>) -> TimeInterval? {
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration > 0, timeBase.num > 0, timeBase.den > 0 {
            return Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
        }
        if context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        return nil
    }

    /// The stream's length in frames at `sampleRate`, rounded down, when the container states it and did not
    /// estimate it from the bit rate.
    private static func statedFrameCount(
        of stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>, sampleRate: Int
    ) -> Int? {
        let timeBase = stream.pointee.time_base
        guard stream.pointee.duration > 0, timeBase.num > 0, timeBase.den > 0,
              context.pointee.duration_estimation_method != AVFMT_DURATION_FROM_BITRATE
        else { return nil }
        let frames = av_rescale_q_rnd(stream.pointee.duration, timeBase, AVRational(num: 1, den: Int32(sampleRate)), AV_ROUND_DOWN)
        return Int(frames)
    }

    private static func openError(_ status: Int32, path: String) -> AudioSourceError {
        switch -status {
        case ENOENT: return .fileNotFound(path: path)
        case EACCES, EPERM, EISDIR, EIO: return .unreadableFile(path: path, reason: errorText(status) + ".")
        default: break
        }
        if let format = probedFormat(path: path) {
            return .corruptFile(
                path: path, reason: "It looks like \(format), but FFmpeg could not read its header (\(errorText(status))).")
        }
        return .notAudio(path: path, reason: "FFmpeg does not recognise it as any audio or video format.")
    }

    /// The long name of the format FFmpeg guesses from the file's first bytes and its name, if any.
    private static func probedFormat(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 1 << 16), !head.isEmpty else { return nil }
        // The probe reads past the end of the buffer by up to AVPROBE_PADDING_SIZE bytes, which must be zero.
        var bytes = [UInt8](head)
        bytes += [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
            path.withCString { name -> String? in
                var probe = AVProbeData()
                probe.filename = name
                probe.buf = buffer.baseAddress
                probe.buf_size = Int32(head.count)
                guard let format = av_probe_input_format(&probe, 1) else { return nil }
                let longName = format.pointee.long_name.map { String(cString: $0) } ?? String(cString: format.pointee.name)
                return "\(longName) (\(String(cString: format.pointee.name)))"
            }
        }
    }

    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
