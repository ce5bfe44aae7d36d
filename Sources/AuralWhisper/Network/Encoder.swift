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

    init(_ file: ModelFile, width: Int, heads: Int, computeType: ComputeType = .float32) throws {
        self.width = width
        self.heads = heads
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

/// Runs the encoder on one window of log-mel frames.
enum Encoder {
    /// Encodes `frames` mel frames ([melCount × frames] row-major, frames even, at most 3000) into
    /// [frames/2 × d] hidden states.
    static func encode(_ mel: [Float], frames: Int, weights w: EncoderWeights) -> Tensor {
        let d = w.width
        let melCount = w.conv1.inFeatures / 3
        let t1 = frames
        let t2 = (frames - 1) / 2 + 1
        // conv1: im2col [t1, melCount·3], column c·3 + k = mel[c, t + k − 1].
        let columns1 = Tensor(count: t1 * melCount * 3)
        mel.withUnsafeBufferPointer { m in
            for t in 0..<t1 {
                let row = columns1.pointer + t * melCount * 3
                for c in 0..<melCount {
                    let src = m.baseAddress! + c * frames
                    row[c * 3] = t > 0 ? src[t - 1] : 0
                    row[c * 3 + 1] = src[t]
                    row[c * 3 + 2] = t + 1 < t1 ? src[t + 1] : 0
                }
            }
        }
        let hidden1 = Tensor(count: t1 * d)
        w.conv1.apply(columns1.pointer, rows: t1, into: hidden1.pointer)
        Kernels.gelu(hidden1.pointer, count: t1 * d)
        // conv2, stride 2: im2col [t2, d·3], column c·3 + k = hidden1[2t + k − 1, c].
        let columns2 = Tensor(count: t2 * d * 3)
        for t in 0..<t2 {
            let row = columns2.pointer + t * d * 3
            for k in 0..<3 {
                let source = 2 * t + k - 1
                if source < 0 || source >= t1 {
                    for c in 0..<d { row[c * 3 + k] = 0 }
                } else {
                    let src = hidden1.pointer + source * d
                    for c in 0..<d { row[c * 3 + k] = src[c] }
                }
            }
        }
        let x = Tensor(count: t2 * d)
        w.conv2.apply(columns2.pointer, rows: t2, into: x.pointer)
        Kernels.gelu(x.pointer, count: t2 * d)
        for i in 0..<(t2 * d) { x.pointer[i] += w.positions.pointer[i] }

        let normed = Tensor(count: t2 * d)
        let qkv = Tensor(count: t2 * 3 * d)
        let attention = Tensor(count: t2 * d)
        let ffnWidth = w.layers[0].ffnIn.outFeatures
        let ffn = Tensor(count: t2 * ffnWidth)
        let scores = Tensor(count: t2 * t2)
        for layer in w.layers {
            layer.attentionNorm.apply(x.pointer, rows: t2, into: normed.pointer)
            layer.qkv.apply(normed.pointer, rows: t2, into: qkv.pointer)
            Attention.multiHead(
                queries: qkv.pointer, queryStride: 3 * d, keys: qkv.pointer + d, values: qkv.pointer + 2 * d,
                keyStride: 3 * d, queryCount: t2, keyCount: t2, heads: w.heads, headWidth: d / w.heads,
                causalOffset: nil, scores: scores.pointer, output: attention.pointer, outputStride: d)
            layer.attentionOut.apply(attention.pointer, rows: t2, into: x.pointer, accumulate: true)
            layer.ffnNorm.apply(x.pointer, rows: t2, into: normed.pointer)
            layer.ffnIn.apply(normed.pointer, rows: t2, into: ffn.pointer)
            Kernels.gelu(ffn.pointer, count: t2 * ffnWidth)
            layer.ffnOut.apply(ffn.pointer, rows: t2, into: x.pointer, accumulate: true)
        }
        let out = Tensor(count: t2 * d)
        w.finalNorm.apply(x.pointer, rows: t2, into: out.pointer)
        return out
    }
}
