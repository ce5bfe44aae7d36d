/// Moving samples in and out of buffers of any common format, as `Float` in -1...1.
///
/// Integers scale by 2^(bits-1): 16-bit samples are divided by 32768 on the way out and multiplied by 32768 (rounded
/// to nearest, clipped to the type's range) on the way in, so 16-bit audio goes through `Float` unchanged. 32-bit
/// integers and 64-bit floats keep the 24-bit precision of `Float`.
extension AVAudioPCMBuffer {
    /// Reads `count` samples of `channel` from frame `frame` into `destination`, one every `destinationStride`.
    func load(channel: Int, from frame: Int, count: Int, into destination: UnsafeMutablePointer<Float>, destinationStride: Int = 1) {
        let step = stride
        let base = firstSample(ofChannel: channel)
        switch format.commonFormat {
        case .pcmFormatFloat32:
            let source = base.assumingMemoryBound(to: Float.self)
            for index in 0..<count { destination[index * destinationStride] = source[(frame + index) * step] }
        case .pcmFormatFloat64:
            let source = base.assumingMemoryBound(to: Double.self)
            for index in 0..<count { destination[index * destinationStride] = Float(source[(frame + index) * step]) }
        case .pcmFormatInt16:
            let source = base.assumingMemoryBound(to: Int16.self)
            for index in 0..<count { destination[index * destinationStride] = Float(source[(frame + index) * step]) / 32_768 }
        case .pcmFormatInt32:
            let source = base.assumingMemoryBound(to: Int32.self)
            for index in 0..<count {
                destination[index * destinationStride] = Float(Double(source[(frame + index) * step]) / 2_147_483_648)
            }
        case .otherFormat:
            break
        }
    }

    /// Writes `count` samples of `channel` from frame `frame` on, taken from `source` one every `sourceStride`.
    func store(channel: Int, at frame: Int, count: Int, from source: UnsafePointer<Float>, sourceStride: Int = 1) {
        let step = stride
        let base = firstSample(ofChannel: channel)
        switch format.commonFormat {
        case .pcmFormatFloat32:
            let target = base.assumingMemoryBound(to: Float.self)
            for index in 0..<count { target[(frame + index) * step] = source[index * sourceStride] }
        case .pcmFormatFloat64:
            let target = base.assumingMemoryBound(to: Double.self)
            for index in 0..<count { target[(frame + index) * step] = Double(source[index * sourceStride]) }
        case .pcmFormatInt16:
            let target = base.assumingMemoryBound(to: Int16.self)
            for index in 0..<count { target[(frame + index) * step] = Int16(scaled(source[index * sourceStride], by: 32_768)) }
        case .pcmFormatInt32:
            let target = base.assumingMemoryBound(to: Int32.self)
            for index in 0..<count {
                target[(frame + index) * step] = Int32(scaled(source[index * sourceStride], by: 2_147_483_648))
            }
        case .otherFormat:
            break
        }
    }

    /// The channel's samples of frames `frames`, as `Float`.
    func floats(channel: Int, frames: Range<Int>) -> [Float] {
        [Float](unsafeUninitializedCapacity: frames.count) { buffer, initialized in
            if let base = buffer.baseAddress { load(channel: channel, from: frames.lowerBound, count: frames.count, into: base) }
            initialized = frames.count
        }
    }

    /// Frames `frames`, interleaved (`channelCount` samples per frame), as `Float`.
    package func interleavedFloats(frames: Range<Int>) -> [Float] {
        let channels = Int(format.channelCount)
        return [Float](unsafeUninitializedCapacity: frames.count * channels) { buffer, initialized in
            if let base = buffer.baseAddress {
                for channel in 0..<channels {
                    load(channel: channel, from: frames.lowerBound, count: frames.count, into: base + channel, destinationStride: channels)
                }
            }
            initialized = frames.count * channels
        }
    }

    /// Writes interleaved frames of `channelCount` samples at frame `frame`; `frameLength` is not changed.
    package func storeInterleaved(_ interleaved: [Float], at frame: Int) {
        let channels = Int(format.channelCount)
        interleaved.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for channel in 0..<channels {
                store(channel: channel, at: frame, count: interleaved.count / channels, from: base + channel, sourceStride: channels)
            }
        }
    }

    /// Copies frames `frames` of `source`, whose format must be compatible (`isCompatible(with:)`), to frame `frame`.
    func copyFrames(_ frames: Range<Int>, of source: AVAudioPCMBuffer, to frame: Int) {
        for plane in 0..<planes {
            let from = source.planeBytes(plane, frames: frames)
            let to = planeBytes(plane, frames: frame..<(frame + frames.count))
            to.copyMemory(from: UnsafeRawBufferPointer(from))
        }
    }
}

/// `value * scale` rounded to nearest and clipped to the integer range of that scale, [-scale, scale - 1].
private func scaled(_ value: Float, by scale: Double) -> Double {
    let product = (Double(value) * scale).rounded()
    guard !product.isNaN else { return 0 }
    return min(max(product, -scale), scale - 1)
}
