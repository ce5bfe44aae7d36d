/// The text decoder's weights: token and learned position embeddings, pre-norm layers with self-attention,
/// cross-attention over the audio, and a feed-forward block. The output projection is the embedding (tied).
struct DecoderWeights: Sendable {
    struct Layer: Sendable {
        let selfNorm: LayerNorm
        /// Fused Q, K, V projection [3d, d].
        let selfQKV: Linear
        let selfOut: Linear
        let crossNorm: LayerNorm
        let crossQuery: Linear
        /// Fused K, V projection of the encoder output [2d, d].
        let crossKV: Linear
        let crossOut: Linear
        let ffnNorm: LayerNorm
        let ffnIn: Linear
        let ffnOut: Linear
    }

    /// The token embeddings [vocabulary × d] as a layer without bias: its rows are looked up for the input, and
    /// it is also the output projection (hidden · Eᵀ).
    let embedding: Linear
    /// [textContext × d] learned positions.
    let positions: Tensor
    let layers: [Layer]
    let finalNorm: LayerNorm
    let width: Int
    let heads: Int
    let vocabularySize: Int
    let textContext: Int

    init(_ file: ModelFile, width: Int, heads: Int, computeType: ComputeType = .float32) throws {
        self.width = width
        self.heads = heads
        let embeddingShape = try file.shape("decoder/embeddings/weight")
        vocabularySize = embeddingShape[0]
        guard embeddingShape == [vocabularySize, width] else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "decoder embeddings have shape \(embeddingShape)")
        }
        embedding = try Linear(file, "decoder/embeddings", bias: false, keepHalf: true, computeType: computeType)
        let positionShape = try file.shape("decoder/position_encodings/encodings")
        textContext = positionShape[0]
        positions = Tensor(try file.floats("decoder/position_encodings/encodings", shape: [textContext, width]))
        var layers: [Layer] = []
        while file.contains("decoder/layer_\(layers.count)/self_attention/linear_0/weight") {
            let p = "decoder/layer_\(layers.count)"
            layers.append(Layer(
                selfNorm: try LayerNorm(file, p + "/self_attention/layer_norm", size: width),
                selfQKV: try Linear(file, p + "/self_attention/linear_0", keepHalf: true, computeType: computeType),
                selfOut: try Linear(file, p + "/self_attention/linear_1", keepHalf: true, computeType: computeType),
                crossNorm: try LayerNorm(file, p + "/attention/layer_norm", size: width),
                crossQuery: try Linear(file, p + "/attention/linear_0", keepHalf: true, computeType: computeType),
                crossKV: try Linear(file, p + "/attention/linear_1", computeType: computeType),
                crossOut: try Linear(file, p + "/attention/linear_2", keepHalf: true, computeType: computeType),
                ffnNorm: try LayerNorm(file, p + "/ffn/layer_norm", size: width),
                ffnIn: try Linear(file, p + "/ffn/linear_0", keepHalf: true, computeType: computeType),
                ffnOut: try Linear(file, p + "/ffn/linear_1", keepHalf: true, computeType: computeType)))
        }
        guard !layers.isEmpty else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "the decoder has no layers")
        }
        self.layers = layers
        finalNorm = try LayerNorm(file, "decoder/layer_norm", size: width)
    }
}

/// One window's decoding state: the cross-attention keys and values of its audio (computed once) and the
/// self-attention cache of each beam. Owned by a single decode; never shared.
final class DecoderState {
    let weights: DecoderWeights
    /// Encoder positions in this window.
    let audioLength: Int
    /// Each layer's attention over this window's audio.
    private let crossAttention: [CrossAttention]
    /// Each layer's self-attention keys and values of every beam.
    private var cache: SelfAttentionCache
    /// Beams whose caches are live.
    private(set) var beamCount = 1
    /// Tokens held in each beam's cache.
    private(set) var length = 0
    /// The beams `reorder` saves before overwriting them, kept across steps.
    private var reorderScratch = Tensor(count: 0)

    /// Projects the encoder output [audioLength × d] to every layer's cross-attention keys and values; with
    /// `reuse`, only the positions that differ from a kept full encode's (`CrossAttentionStore`).
    init(weights: DecoderWeights, encoderOutput: Tensor, audioLength: Int, beamCapacity: Int = 1, reuse: CrossAttentionReuse? = nil) {
        self.weights = weights
        self.audioLength = audioLength
        if let reuse {
            crossAttention = reuse.store.attention(
                weights: weights, encoderOutput: encoderOutput, audioLength: audioLength, fresh: reuse.fresh)
        } else {
            crossAttention = weights.layers.map {
                CrossAttention(layer: $0, weights: weights, encoderOutput: encoderOutput, audioLength: audioLength)
            }
        }
        cache = SelfAttentionCache(
            layers: weights.layers.count, beams: max(1, beamCapacity), beamStride: weights.textContext * weights.width)
    }

    /// Forgets every token (the cross-attention stays), so the same audio can be decoded again.
    func reset() {
        length = 0
        beamCount = 1
    }

    /// Forgets every token after the first `tokens` of the one beam, which the next `forward` continues from.
    func truncate(to tokens: Int) {
        precondition(beamCount == 1 && tokens >= 0 && tokens <= length, "truncating one beam to tokens it holds")
        length = tokens
    }

    /// Makes beam i a copy of beam `sources[i]`; the beam count becomes `sources.count`.
    func reorder(_ sources: [Int]) {
        let d = weights.width
        let stride = cache.beamStride
        if sources.count > cache.beams {
            cache = SelfAttentionCache(growing: cache, to: sources.count, keeping: beamCount, floats: length * d)
        }
        precondition(sources.allSatisfy { $0 >= 0 && $0 < beamCount }, "a source beam that is not live")
        // Only beams that take another beam's tokens are written; a source that is itself overwritten is saved
        // first. A beam search mostly keeps its beams in place, so most steps copy a beam or two, not all of them.
        let moved = sources.indices.filter { sources[$0] != $0 }
        let overwritten = Set(moved)
        let saved = Set(moved.map { sources[$0] }).filter { overwritten.contains($0) }.sorted()
        let used = length * d
        if !moved.isEmpty && used > 0 {
            if reorderScratch.count < saved.count * used { reorderScratch = Tensor(count: saved.count * used) }
            for l in 0..<cache.layers {
                for layerCache in [cache.keys[l], cache.values[l]] {
                    for (k, s) in saved.enumerated() {
                        (reorderScratch.pointer + k * used).update(from: layerCache + s * stride, count: used)
                    }
                    for i in moved {
                        let source = sources[i]
                        let from = saved.firstIndex(of: source).map { reorderScratch.pointer + $0 * used } ?? layerCache + source * stride
                        (layerCache + i * stride).update(from: from, count: used)
                    }
                }
            }
        }
        beamCount = sources.count
    }

    /// Feeds `tokens[b]` (the same count for every beam) at the next positions and returns the final-norm hidden
    /// states [beamCount·n × d]. `captureCrossAttention` receives (layer, head, weights [beamCount·n × audioLength]).
    ///
    /// With `outputRows` (one beam, no capture), only those rows' hidden states are returned, in that order: the last
    /// layer computes its keys and values for every row, as the cache needs, and the rest of it for those rows alone.
    func forward(
        _ tokens: [[Int]], outputRows: [Int]? = nil,
        captureCrossAttention: ((_ layer: Int, _ head: Int, _ weights: UnsafePointer<Float>) -> Void)? = nil
    ) -> Tensor {
        precondition(tokens.count == beamCount, "one token list per beam")
        precondition(outputRows == nil || (beamCount == 1 && captureCrossAttention == nil), "output rows of one beam, uncaptured")
        let n = tokens[0].count
        let rows = beamCount * n
        let d = weights.width
        precondition(length + n <= weights.textContext, "the decoder holds at most \(weights.textContext) tokens")
        var x = Tensor(count: rows * d)
        for (b, beamTokens) in tokens.enumerated() {
            for (i, token) in beamTokens.enumerated() {
                let row = x.pointer + (b * n + i) * d
                weights.embedding.row(token, into: row)
                let position = weights.positions.pointer + (length + i) * d
                for c in 0..<d { row[c] += position[c] }
            }
        }
        let normed = Tensor(count: rows * d)
        let qkv = Tensor(count: rows * 3 * d)
        let attention = Tensor(count: rows * d)
        let ffn = Tensor(count: rows * weights.layers[0].ffnIn.outFeatures)
        // Decoder steps run the attention heads in parallel, each with its own scores.
        let parallelHeads = rows <= SkinnyGEMM.maxRows
        let scores = Tensor(count: max((parallelHeads ? weights.heads : 1) * n * (length + n), crossAttention[0].scratchCount(rows: rows)))
        var outRows = rows
        for (l, layer) in weights.layers.enumerated() {
            layer.selfNorm.apply(x.pointer, rows: rows, into: normed.pointer)
            layer.selfQKV.apply(normed.pointer, rows: rows, into: qkv.pointer)
            storeKeysAndValues(qkv, layer: l, tokens: n)
            if let outputRows, l == weights.layers.count - 1 {
                // Gather the rows kept, each attending over the cache up to its own position (into the first rows of
                // `attention`, which holds every row).
                let kept = Tensor(count: outputRows.count * d)
                for (k, i) in outputRows.enumerated() {
                    (kept.pointer + k * d).update(from: x.pointer + i * d, count: d)
                    selfAttend(
                        qkv, layer: l, beam: 0, tokens: n, queries: i..<(i + 1), scores: scores, parallelHeads: true,
                        output: attention.pointer + k * d)
                }
                x = kept
                outRows = outputRows.count
            } else {
                for b in 0..<beamCount {
                    selfAttend(
                        qkv, layer: l, beam: b, tokens: n, queries: 0..<n, scores: scores, parallelHeads: parallelHeads,
                        output: attention.pointer + b * n * d)
                }
            }
            if outRows > 0 {
                finishLayer(
                    l, x: x, rows: outRows, attention: attention, normed: normed, queries: qkv, ffn: ffn,
                    scores: scores, capture: captureCrossAttention)
            }
        }
        length += n
        let out = Tensor(count: outRows * d)
        weights.finalNorm.apply(x.pointer, rows: outRows, into: out.pointer)
        return out
    }

    /// Writes the keys and values of `tokens` new positions of every beam (in `qkv`, [beams·tokens × 3d]) to layer
    /// `l`'s cache.
    private func storeKeysAndValues(_ qkv: Tensor, layer l: Int, tokens n: Int) {
        let d = weights.width
        for b in 0..<beamCount {
            for i in 0..<n {
                let source = qkv.pointer + (b * n + i) * 3 * d
                let target = b * cache.beamStride + (length + i) * d
                (cache.keys[l] + target).update(from: source + d, count: d)
                (cache.values[l] + target).update(from: source + 2 * d, count: d)
            }
        }
    }

    /// Self-attention of beam `b`'s new positions `queries` (of the `n` tokens per beam this forward feeds, whose
    /// queries are in `qkv`) over the cache up to each one's own position.
    private func selfAttend(
        _ qkv: Tensor, layer l: Int, beam b: Int, tokens n: Int, queries: Range<Int>, scores: Tensor,
        parallelHeads: Bool, output: UnsafeMutablePointer<Float>
    ) {
        let d = weights.width
        Attention.multiHead(
            queries: qkv.pointer + (b * n + queries.lowerBound) * 3 * d, queryStride: 3 * d,
            keys: cache.keys[l] + b * cache.beamStride, values: cache.values[l] + b * cache.beamStride, keyStride: d,
            queryCount: queries.count, keyCount: length + queries.upperBound, heads: weights.heads,
            headWidth: d / weights.heads, causalOffset: length + queries.lowerBound, scores: scores.pointer,
            scoresHoldEveryHead: parallelHeads, output: output, outputStride: d)
    }

    /// The rest of layer `l` for `rows` rows after their self-attention: its output projection, the cross-attention
    /// over the audio and the feed-forward block, each added to `x`. `normed`, `queries` and `ffn` are scratch.
    private func finishLayer(
        _ l: Int, x: Tensor, rows: Int, attention: Tensor, normed: Tensor, queries: Tensor, ffn: Tensor, scores: Tensor,
        capture: ((_ layer: Int, _ head: Int, _ weights: UnsafePointer<Float>) -> Void)?
    ) {
        let layer = weights.layers[l]
        let d = weights.width
        layer.selfOut.apply(attention.pointer, rows: rows, into: x.pointer, accumulate: true)

        layer.crossNorm.apply(x.pointer, rows: rows, into: normed.pointer)
        layer.crossQuery.apply(normed.pointer, rows: rows, into: queries.pointer)
        crossAttention[l].attend(
            queries: queries.pointer, queryStride: d, rows: rows, scratch: scores.pointer, output: attention.pointer,
            outputStride: d, capture: capture.map { capture in { head, w in capture(l, head, w) } })
        layer.crossOut.apply(attention.pointer, rows: rows, into: x.pointer, accumulate: true)

        layer.ffnNorm.apply(x.pointer, rows: rows, into: normed.pointer)
        layer.ffnIn.apply(normed.pointer, rows: rows, into: ffn.pointer)
        Kernels.gelu(ffn.pointer, count: rows * layer.ffnIn.outFeatures)
        layer.ffnOut.apply(ffn.pointer, rows: rows, into: x.pointer, accumulate: true)
    }

    /// Logits [rows.count × vocabulary] of the given rows of `hidden` (hidden · Eᵀ).
    func logits(_ hidden: Tensor, rows: [Int]) -> Tensor {
        let d = weights.width
        let v = weights.vocabularySize
        let gathered = Tensor(count: rows.count * d)
        for (i, r) in rows.enumerated() { (gathered.pointer + i * d).update(from: hidden.pointer + r * d, count: d) }
        let out = Tensor(count: rows.count * v)
        weights.embedding.apply(gathered.pointer, rows: rows.count, into: out.pointer)
        return out
    }
}

/// Each decoder layer's self-attention keys and values, [beams × textContext × width] per layer.
///
/// Not zeroed: a decode writes a position's keys and values before any attention reads them, and reads none past
/// the tokens fed (`DecoderState.length`), so zero-filling megabytes per decode (glibc's `calloc` memsets memory it
/// reuses) bought nothing.
private final class SelfAttentionCache {
    let layers: Int
    let beams: Int
    /// Floats between two beams' caches (textContext × width).
    let beamStride: Int
    let keys: [UnsafeMutablePointer<Float>]
    let values: [UnsafeMutablePointer<Float>]

    init(layers: Int, beams: Int, beamStride: Int) {
        self.layers = layers
        self.beams = beams
        self.beamStride = beamStride
        keys = (0..<layers).map { _ in .allocate(capacity: max(1, beams * beamStride)) }
        values = (0..<layers).map { _ in .allocate(capacity: max(1, beams * beamStride)) }
    }

    /// A cache of `beams` beams holding `other`'s first `floats` floats of its first `liveBeams` beams.
    convenience init(growing other: SelfAttentionCache, to beams: Int, keeping liveBeams: Int, floats: Int) {
        self.init(layers: other.layers, beams: beams, beamStride: other.beamStride)
        for l in 0..<layers {
            for b in 0..<liveBeams {
                (keys[l] + b * beamStride).update(from: other.keys[l] + b * beamStride, count: floats)
                (values[l] + b * beamStride).update(from: other.values[l] + b * beamStride, count: floats)
            }
        }
    }

    deinit {
        for pointer in keys + values { pointer.deallocate() }
    }
}
