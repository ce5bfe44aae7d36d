/// How the engine computes its matrix products: on float32 weights, or on int8 weights with int8 activations.
///
/// Chosen when a model loads (`WhisperModel(folder:computeType:)`, `aural transcribe --compute-type`), since it
/// decides which copy of the weights the model keeps.
public enum ComputeType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// float32 products on the weights as stored (float16 and bfloat16 widened exactly, int8 multiplied back out):
    /// token for token what faster-whisper gives with `compute_type="float32"` on a float folder.
    case float32
    /// int8 weights, one scale per output row (as a quantized folder stores them, or quantized at load as
    /// CTranslate2 does), activations quantized per row on the fly, and exact int32 sums: faster-whisper's
    /// `compute_type="int8"`. Faster and a quarter of float32's weight memory; the text may differ from float32's
    /// in a few words. Needs oneDNN (Debian's `libdnnl2`) for the products of many rows.
    case int8
    /// The faster of the two on this machine: int8 where oneDNN can be opened, float32 otherwise.
    case auto

    /// The name `--compute-type` takes.
    public var description: String { rawValue }

    /// `.float32` or `.int8`: `.auto` decided for this machine.
    public var resolved: ComputeType {
        switch self {
        case .float32, .int8: self
        case .auto: (try? OneDNN.loaded.get()) != nil ? .int8 : .float32
        }
    }
}
