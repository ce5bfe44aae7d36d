import Foundation

/// A loaded Whisper model: weights, dimensions and tokenizer, read from a CTranslate2 folder.
///
/// Immutable once loaded, so one instance can serve any number of concurrent transcriptions; each transcription
/// keeps its own state (activations, caches).
///
/// ```swift
/// let model = try WhisperModel(folder: URL(fileURLWithPath: "/path/to/faster-whisper-base"))
/// let transcriber = Transcriber(model: model)
/// for try await segment in transcriber.segments(samples, options: DecodingOptions()) {
///     print(segment.start, segment.text)
/// }
/// ```
public final class WhisperModel: Sendable {
    /// The folder the model was read from.
    public let folder: URL
    /// Size of the hidden state (384 tiny, 512 base, …).
    public let modelWidth: Int
    /// Attention heads per layer.
    public let headCount: Int
    /// Mel bins the encoder expects (80, or 128 for large-v3).
    public let melCount: Int
    /// Tokens in the vocabulary.
    public let vocabularySize: Int
    /// How this model computes: `.float32` or `.int8` (never `.auto`, which is decided at load).
    public let computeType: ComputeType
    /// Whether the model knows languages other than English.
    public var isMultilingual: Bool { tokenizer.isMultilingual }
    /// Language codes the model can transcribe ("en" only for English-only models).
    public var languages: [String] { isMultilingual ? tokenizer.languageCodes : ["en"] }

    let tokenizer: Tokenizer
    let encoder: EncoderWeights
    let decoder: DecoderWeights
    let logMel: LogMel
    /// Tokens suppressed at every step (config.json `suppress_ids`).
    let suppressTokens: [Int]
    /// Tokens suppressed at the first sampled step (config.json `suppress_ids_begin`).
    let suppressTokensAtBegin: [Int]
    /// Decoder (layer, head) pairs whose cross-attention follows the audio in time.
    let alignmentHeads: [(layer: Int, head: Int)]
    /// Maximum decoder positions (448).
    let textContext: Int
    /// Encoder positions for 30 s (1500).
    let audioContext: Int

    /// Loads `model.bin`, `config.json`, `vocabulary.txt` and `tokenizer.json` from `folder`.
    ///
    /// Any CTranslate2 conversion loads with either compute type: float16, bfloat16 and float32 folders, and the
    /// int8 ones (`int8`, `int8_float16`, `int8_float32`, `int8_bfloat16`). int8 takes a quantized folder's weights
    /// as stored and quantizes a float folder's at load; float32 multiplies int8 weights back out.
    /// - Parameter computeType: `.float32` (the default: results token for token equal to faster-whisper's float32),
    ///   `.int8`, or `.auto` (the faster on this machine); see `ComputeType`.
    /// - Throws: `WhisperModelError` naming the missing or malformed file, or `.engineUnavailable` without OpenBLAS
    ///   (or, for int8, without oneDNN).
    public init(folder: URL, computeType: ComputeType = .float32) throws {
        let computeType = computeType.resolved
        self.computeType = computeType
        self.folder = folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WhisperModelError.missingFile(path: folder.path)
        }
        let config = try ModelConfig(url: folder.appendingPathComponent("config.json"))
        // Three threads share the load: the tokenizer (mostly reading vocabulary.txt, and tokenizer.json on a first
        // load) on one, the libraries and the encoder's weights on another, the decoder's weights (the larger part,
        // with the embedding) here.
        let tokenizerLoad = BackgroundLoad { try Tokenizer(folder: folder) }
        let libraryLoad = BackgroundLoad {
            _ = try OpenBLAS.loaded.get()
            if computeType == .int8 { _ = try OneDNN.loaded.get() }
        }
        let file = try ModelFile(url: folder.appendingPathComponent("model.bin"))
        guard file.specName == "WhisperSpec" else {
            throw WhisperModelError.unsupportedModel(
                path: folder.path, reason: "model.bin holds a \(file.specName), not a Whisper model (WhisperSpec)")
        }
        let conv1 = try file.shape("encoder/conv1/weight")
        guard conv1.count == 3 else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "encoder/conv1/weight has shape \(conv1)")
        }
        modelWidth = conv1[0]
        melCount = conv1[1]
        headCount = try file.integer("encoder/num_heads")
        guard headCount > 0, modelWidth % headCount == 0 else {
            throw WhisperModelError.corruptModel(path: file.path, reason: "\(headCount) heads do not divide width \(modelWidth)")
        }
        let embedding = try file.shape("decoder/embeddings/weight")
        vocabularySize = embedding[0]
        textContext = try file.shape("decoder/position_encodings/encodings")[0]
        audioContext = try file.shape("encoder/position_encodings/encodings")[0]
        let activation = try file.integer("decoder/activation")
        guard activation == 3 else {
            throw WhisperModelError.unsupportedModel(path: folder.path, reason: "activation \(activation) is not exact GELU")
        }
        let (width, heads) = (modelWidth, headCount)
        let encoderLoad = BackgroundLoad { try EncoderWeights(file, width: width, heads: heads, computeType: computeType) }
        decoder = try DecoderWeights(file, width: width, heads: heads, computeType: computeType)
        try libraryLoad.result()
        encoder = try encoderLoad.result()
        tokenizer = try tokenizerLoad.result()
        guard vocabularySize == tokenizer.vocabularySize else {
            throw WhisperModelError.corruptModel(
                path: folder.path,
                reason: "vocabulary.txt has \(tokenizer.vocabularySize) tokens but the model has \(vocabularySize) embeddings")
        }
        logMel = LogMel(melCount: melCount)
        suppressTokens = config.suppressIDs
        suppressTokensAtBegin = config.suppressIDsBegin
        let layers = decoder.layers.count
        alignmentHeads = config.alignmentHeads.isEmpty
            ? (layers / 2..<layers).flatMap { l in (0..<heads).map { (l, $0) } }
            : config.alignmentHeads.filter { $0.layer < layers && $0.head < heads }
    }
}

/// A value computed on a thread of its own (not Swift's cooperative pool) while the caller goes on; `result()` waits
/// for it. If the caller throws first, the thread still finishes and its value is dropped.
private final class BackgroundLoad<Value: Sendable>: @unchecked Sendable {  // `outcome` is written before `done` signals
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
        thread.name = "AuralWhisper model load"
        thread.start()
    }

    /// The value, or the error the body threw.
    func result() throws -> Value {
        done.wait()
        done.signal()  // a second call returns at once
        return try outcome!.get()
    }
}

/// The parts of config.json the engine uses.
struct ModelConfig {
    var suppressIDs: [Int] = []
    var suppressIDsBegin: [Int] = []
    var alignmentHeads: [(layer: Int, head: Int)] = []

    init(url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw WhisperModelError.missingFile(path: url.path) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw WhisperModelError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw WhisperModelError.corruptModel(path: url.path, reason: "config.json is not a JSON object")
        }
        suppressIDs = (object["suppress_ids"] as? [Int]) ?? []
        suppressIDsBegin = (object["suppress_ids_begin"] as? [Int]) ?? []
        if let heads = object["alignment_heads"] as? [[Int]] {
            alignmentHeads = heads.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        }
    }
}
