import Foundation

/// The decoder's cross-attention keys and values of a full encode kept for reuse (`ReusableEncoding`): the first
/// decode of that window fills it, and the decodes of later windows that take most positions from the same encode
/// (`WindowDecoder.encode(_:computing:reusing:)`) project only the positions they computed.
final class CrossAttentionStore: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`; written once.
    private var layers: [CrossAttention]?

    /// Whether a decode of the full encode filled the store.
    var isFilled: Bool { lock.withLock { layers != nil } }

    /// Every layer's attention over `encoderOutput`, whose positions outside `fresh` hold the kept full encode's
    /// output. A window with every position fresh is the full encode itself: its attention fills the store.
    func attention(weights: DecoderWeights, encoderOutput: Tensor, audioLength: Int, fresh: Range<Int>) -> [CrossAttention] {
        let isFull = fresh == 0..<audioLength
        if let kept = lock.withLock({ layers }), kept.first?.audioLength == audioLength {
            if isFull { return kept }
            return zip(kept, weights.layers).map { base, layer in
                CrossAttention(updating: base, positions: fresh, encoderOutput: encoderOutput, projection: layer.crossKV)
            }
        }
        let made = weights.layers.map {
            CrossAttention(layer: $0, weights: weights, encoderOutput: encoderOutput, audioLength: audioLength)
        }
        if isFull { lock.withLock { if layers == nil { layers = made } } }
        return made
    }
}

/// Where a window's cross-attention keys and values can come from: `store`, except at the positions `fresh`.
struct CrossAttentionReuse: Sendable {
    let store: CrossAttentionStore
    let fresh: Range<Int>
}
