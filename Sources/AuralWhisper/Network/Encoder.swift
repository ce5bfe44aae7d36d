/// The audio encoder's weights: two convolutions, sinusoidal positions, pre-norm transformer layers.
struct EncoderWeights: Sendable {
    struct Layer: Sendable {
        let attentionNorm: LayerNorm
        /// Fused Q, K, V projection [3d, d].
        let qkv: Linear
        let attentionOut: Linear
        let ffnNorm: LayerNorm
        let ffnIn: Linear
        let ffnOut: Linear
    }

    /// conv1 as [d, melCount·3] (PyTorch [out, in, k] flattened), conv2 as [d, d·3].
    let conv1: Linear
    let conv2: Linear
    let positions: Tensor
    let layers: [Layer]
    let finalNorm: LayerNorm
    let width: Int
    let heads: Int
    /// Whether the self-attention's products run in int8 (`Int8Attention`).
    let int8Attention: Bool

    init(_ file: ModelFile, width: Int, heads: Int, computeType: ComputeType = .float32) throws {
        self.width = width
        self.heads = heads
        int8Attention = Int8Attention.applies(to: computeType)
        conv1 = try Linear(convolution: file, "encoder/conv1")
        conv2 = try Linear(convolution: file, "encoder/conv2")
        positions = Tensor(try file.floats("encoder/position_encodings/encodings"))
        var layers: [Layer] = []
        while file.contains("encoder/layer_\(layers.count)/self_attention/linear_0/weight") {
            let p = "encoder/layer_\(layers.count)"
            layers.append(Layer(
                attentionNorm: try LayerNorm(file, p + "/self_attention/layer_norm", size: width),
                qkv: try Linear(file, p + "/self_attention/linear_0", computeType: computeType),
                attentionOut: try Linear(file, p + "/self_attention/linear_1", computeType: computeType),
                ffnNorm: try LayerNorm(file, p + "/ffn/layer_norm", size: width),
                ffnIn: try Linear(file, p + "/ffn/linear_0", computeType: computeType),
                ffnOut: try Linear(file, p + "/ffn/linear_1", computeType: computeType)))
        }
        guard !layers.isEmpty else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "the encoder has no layers")
        }
        self.layers = layers
        finalNorm = try LayerNorm(file, "encoder/layer_norm", size: width)
    }
}

extension Linear {
    /// A Conv1d weight [out, in, k] read as a dense [out, in·k] matrix for im2col.
    init(convolution file: ModelFile, _ prefix: String) throws {
        let shape = try file.shape(prefix + "/weight")
        guard shape.count == 3, shape[2] == 3 else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "\(prefix)/weight has shape \(shape), expected [out, in, 3]")
        }
        self.init(
            weight: Tensor(try file.floats(prefix + "/weight")),
            bias: Tensor(try file.floats(prefix + "/bias", shape: [shape[0]])),
            outFeatures: shape[0], inFeatures: shape[1] * 3)
    }
}

/// What one encode of a whole window leaves for later ones: every layer's keys and values at every position, and the
/// output. A later encode of the same window with more audio computes the positions up to its audio's end and takes
/// the rest (padding) from here (`Encoder.encode(_:frames:weights:freshPositions:reusing:)`).
struct EncoderMemory: @unchecked Sendable {
    /// Per layer, keys [positions × width] and values [positions × width]; never written after the encode.
    let keys: [Tensor]
    let values: [Tensor]
    /// The encoder's output [positions × width].
    let output: Tensor
    /// Encoder positions of the window.
    let positions: Int
}

/// Runs the encoder on one window of log-mel frames.
enum Encoder {
    /// Encodes `frames` mel frames ([melCount × frames] row-major, frames even, at most 3000) into
    /// [frames/2 × d] hidden states.
    static func encode(_ mel: [Float], frames: Int, weights w: EncoderWeights) -> Tensor {
        run(mel, frames: frames, weights: w, fresh: 0..<((frames - 1) / 2 + 1), reusing: nil, recording: false).output
    }

    /// `encode`, keeping every layer's keys and values for later encodes of the same window with more audio.
    static func encodeRecording(_ mel: [Float], frames: Int, weights w: EncoderWeights) -> EncoderMemory {
        let positions = (frames - 1) / 2 + 1
        let result = run(mel, frames: frames, weights: w, fresh: 0..<positions, reusing: nil, recording: true)
        return EncoderMemory(keys: result.keys, values: result.values, output: result.output, positions: positions)
    }

    /// Encodes the positions `fresh` of the window (the new audio and the start of the padding after it) and takes
    /// every other position's keys, values and output from `memory`, an encode of the same window when it held less
    /// audio. Whisper's attention is over the whole window, so this is not the full encode: the positions taken from
    /// memory keep what they were when they heard less audio. Its cost is that of `fresh.count` positions.
    static func encode(
        _ mel: [Float], frames: Int, weights w: EncoderWeights, fresh: Range<Int>, reusing memory: EncoderMemory
    ) -> Tensor {
        precondition(memory.positions == (frames - 1) / 2 + 1, "the memory is of another window size")
        return run(mel, frames: frames, weights: w, fresh: fresh, reusing: memory, recording: false).output
    }

    /// The encoder over the positions `fresh`, with keys, values and output of the others from `memory`.
    private static func run(
        _ mel: [Float], frames: Int, weights w: EncoderWeights, fresh requested: Range<Int>, reusing memory: EncoderMemory?,
        recording: Bool
    ) -> (output: Tensor, keys: [Tensor], values: [Tensor]) {
        let d = w.width
        let positions = (frames - 1) / 2 + 1
        let fresh = memory == nil ? 0..<positions : requested.clamped(to: 0..<positions)
        let rows = fresh.count
        let x = stem(mel, frames: frames, positions: fresh, weights: w)
        // Separate keys and values when positions come from memory or go to it; else read them from the fused QKV.
        // Every buffer below is written in full before it is read (without memory, every position is fresh).
        let separate = memory != nil || recording
        var keptKeys: [Tensor] = []
        var keptValues: [Tensor] = []
        let normed = Tensor(uninitializedCount: rows * d)
        let qkv = Tensor(uninitializedCount: rows * 3 * d)
        let attention = Tensor(uninitializedCount: rows * d)
        let ffnWidth = w.layers[0].ffnIn.outFeatures
        let ffn = Tensor(uninitializedCount: rows * ffnWidth)
        let scores = Tensor(uninitializedCount: Attention.blockedScratchCount(queryCount: rows, keyCount: positions))
        for (index, layer) in w.layers.enumerated() {
            layer.attentionNorm.apply(x.pointer, rows: rows, into: normed.pointer)
            layer.qkv.apply(normed.pointer, rows: rows, into: qkv.pointer)
            if separate {
                let keys = memory.map { Tensor(copying: $0.keys[index]) } ?? Tensor(uninitializedCount: positions * d)
                let values = memory.map { Tensor(copying: $0.values[index]) } ?? Tensor(uninitializedCount: positions * d)
                for (row, t) in fresh.enumerated() {
                    (keys.pointer + t * d).update(from: qkv.pointer + row * 3 * d + d, count: d)
                    (values.pointer + t * d).update(from: qkv.pointer + row * 3 * d + 2 * d, count: d)
                }
                Attention.multiHead(
                    queries: qkv.pointer, queryStride: 3 * d, keys: keys.pointer, values: values.pointer, keyStride: d,
                    queryCount: rows, keyCount: positions, heads: w.heads, headWidth: d / w.heads, causalOffset: nil,
                    scores: scores.pointer, output: attention.pointer, outputStride: d, int8Products: w.int8Attention)
                if recording {
                    keptKeys.append(keys)
                    keptValues.append(values)
                }
            } else {
                Attention.multiHead(
                    queries: qkv.pointer, queryStride: 3 * d, keys: qkv.pointer + d, values: qkv.pointer + 2 * d,
                    keyStride: 3 * d, queryCount: rows, keyCount: positions, heads: w.heads, headWidth: d / w.heads,
                    causalOffset: nil, scores: scores.pointer, output: attention.pointer, outputStride: d,
                    int8Products: w.int8Attention)
            }
            layer.attentionOut.apply(attention.pointer, rows: rows, into: x.pointer, accumulate: true)
            layer.ffnNorm.apply(x.pointer, rows: rows, into: normed.pointer)
            layer.ffnIn.apply(normed.pointer, rows: rows, into: ffn.pointer)
            Kernels.gelu(ffn.pointer, count: rows * ffnWidth)
            layer.ffnOut.apply(ffn.pointer, rows: rows, into: x.pointer, accumulate: true)
        }
        let out = memory.map { Tensor(copying: $0.output) } ?? Tensor(uninitializedCount: positions * d)
        w.finalNorm.apply(x.pointer, rows: rows, into: out.pointer + fresh.lowerBound * d)
        return (out, keptKeys, keptValues)
    }

    /// The convolutions and positions: rows `positions` [positions.count × d] of the transformer's input.
    private static func stem(_ mel: [Float], frames: Int, positions: Range<Int>, weights w: EncoderWeights) -> Tensor {
        let d = w.width
        let melCount = w.conv1.inFeatures / 3
        let t1 = frames
        // conv2's rows `positions` read conv1's rows 2·lower − 1 ..< 2·upper.
        let first1 = max(0, 2 * positions.lowerBound - 1)
        let rows1 = min(t1, 2 * positions.upperBound) - first1
        // conv1: im2col [rows1, melCount·3], column c·3 + k = mel[c, t + k − 1].
        let columns1 = Tensor(uninitializedCount: rows1 * melCount * 3)
        mel.withUnsafeBufferPointer { m in
            for row in 0..<rows1 {
                let t = first1 + row
                let target = columns1.pointer + row * melCount * 3
                for c in 0..<melCount {
                    let src = m.baseAddress! + c * frames
                    target[c * 3] = t > 0 ? src[t - 1] : 0
                    target[c * 3 + 1] = src[t]
                    target[c * 3 + 2] = t + 1 < t1 ? src[t + 1] : 0
                }
            }
        }
        let hidden1 = Tensor(uninitializedCount: rows1 * d)
        w.conv1.apply(columns1.pointer, rows: rows1, into: hidden1.pointer)
        Kernels.gelu(hidden1.pointer, count: rows1 * d)
        // conv2, stride 2: im2col [rows, d·3], column c·3 + k = conv1[2t + k − 1, c].
        let rows = positions.count
        let columns2 = Tensor(uninitializedCount: rows * d * 3)
        for (row, t) in positions.enumerated() {
            let target = columns2.pointer + row * d * 3
            for k in 0..<3 {
                let source = 2 * t + k - 1
                if source < 0 || source >= t1 {
                    for c in 0..<d { target[c * 3 + k] = 0 }
                } else {
                    let src = hidden1.pointer + (source - first1) * d
                    for c in 0..<d { target[c * 3 + k] = src[c] }
                }
            }
        }
        let x = Tensor(uninitializedCount: rows * d)
        w.conv2.apply(columns2.pointer, rows: rows, into: x.pointer)
        Kernels.gelu(x.pointer, count: rows * d)
        let embedding = w.positions.pointer + positions.lowerBound * d
        for i in 0..<(rows * d) { x.pointer[i] += embedding[i] }
        return x
    }
}
