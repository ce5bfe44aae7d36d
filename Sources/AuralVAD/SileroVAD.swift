import CKernels
import Foundation

/// Silero VAD (v6, 16 kHz): the probability that each 32 ms of audio holds speech.
///
/// ```swift
/// let vad = try SileroVAD(contentsOf: SileroVAD.modelURL(inModelsDirectory: modelsDirectory))
/// let probabilities = vad.probabilities(for: samples)            // one per 512 samples at 16 kHz
/// let speech = SpeechSegments.detect(probabilities: probabilities, sampleCount: samples.count)
/// // speech: [Range<Int>] of sample indices, as silero-vad's get_speech_timestamps gives them
///
/// var stream = vad.stream()                                      // live audio, pieces of any length
/// for piece in pieces { for p in stream.append(piece) { print(p) } }
/// ```
///
/// Follows silero-vad 6.2.3 (`silero_vad/tinygrad_model.py` describes the graph, `silero_vad.onnx` holds the weights,
/// `OnnxWrapper` the way audio is fed):
/// each 512-sample chunk is preceded by the previous chunk's last 64 samples (zeros before the first), padded by
/// reflection to 640 samples, turned into 4 frames of a 256-point STFT magnitude (a convolution with the stored
/// basis), passed through four 1-D convolutions with ReLU, one LSTM cell whose state carries from chunk to chunk, and
/// a 1×1 convolution with a sigmoid.
///
/// The weights are immutable and `Sendable`; each `Stream` (and each `probabilities(for:)` call) has its own state,
/// so one `SileroVAD` can serve any number of threads. Computation runs on the calling thread, on one core.
public struct SileroVAD: Sendable {
    /// The sample rate the model takes, in hertz.
    public static let sampleRate = 16_000
    /// Samples per probability (32 ms).
    public static let chunkSize = 512
    /// Samples of the previous chunk fed before each chunk.
    public static let contextSize = 64
    /// The folder in the model cache that holds the weights.
    public static let modelFolderName = "silero-vad"
    /// The weights file's name.
    public static let modelFileName = "silero_vad.safetensors"

    /// Where the weights file is in a model cache (`<modelsDirectory>/silero-vad/silero_vad.safetensors`); the cache
    /// is the folder that holds the Whisper models (AuralKit's `ModelManager.defaultCacheDirectory`).
    public static func modelURL(inModelsDirectory modelsDirectory: URL) -> URL {
        modelsDirectory.appendingPathComponent(modelFolderName, isDirectory: true).appendingPathComponent(modelFileName)
    }

    let weights: SileroWeights

    /// Loads the weights from a safetensors file with the tensor names of silero-vad's `tinygrad_model.py` (float32 or
    /// float16): the file `scripts/setup` installs (the package's default model, from `silero_vad.onnx`), or the
    /// wheel's `silero_vad_16k.safetensors` (another checkpoint, whose probabilities differ from the ONNX model's).
    /// - Throws: `SileroVADError` when the file is missing, unreadable, or not that model.
    public init(contentsOf url: URL) throws {
        weights = try SileroWeights(SafeTensors(contentsOf: url))
    }

    /// The speech probability of each 512-sample chunk of `samples` (16 kHz mono, −1…1), the last chunk padded with
    /// zeros: `(samples.count + 511) / 512` values, the same as silero-vad's `get_speech_timestamps` computes.
    public func probabilities(for samples: [Float]) -> [Float] {
        var stream = stream()
        return stream.append(samples) + stream.finish()
    }

    /// A detector for audio that arrives in pieces; see `Stream`.
    public func stream() -> Stream {
        Stream(weights: weights)
    }
}

/// The model's weights, laid out for `SileroNetwork`: convolution kernels as [out][tap][in] so that a window of
/// time-major input rows is one contiguous row of the product, and the LSTM's two matrices side by side.
struct SileroWeights: Sendable {
    static let frequencies = 129  // 256-point STFT: 129 bins, real and imaginary parts stored as 258 rows
    static let hidden = 128

    let stft: [Float]  // [258][256]
    let conv1: Convolution  // 129 → 128, stride 1
    let conv2: Convolution  // 128 → 64, stride 2
    let conv3: Convolution  // 64 → 64, stride 2
    let conv4: Convolution  // 64 → 128, stride 1
    let lstm: [Float]  // [512][256]: weight_ih then weight_hh per row; gates in PyTorch's order i, f, g, o
    let lstmBias: [Float]  // bias_ih + bias_hh
    let output: [Float]  // [128]
    let outputBias: Float

    /// A kernel-3, padding-1 convolution.
    struct Convolution: Sendable {
        let inputs: Int
        let outputs: Int
        let stride: Int
        let weight: [Float]  // [outputs][3][inputs]
        let bias: [Float]

        init(_ file: SafeTensors, _ name: String, inputs: Int, outputs: Int, stride: Int) throws {
            let stored = try file.floats("\(name).weight", shape: [outputs, inputs, 3])  // [out][in][tap]
            var weight = [Float](repeating: 0, count: stored.count)
            for o in 0..<outputs {
                for i in 0..<inputs {
                    for t in 0..<3 { weight[(o * 3 + t) * inputs + i] = stored[(o * inputs + i) * 3 + t] }
                }
            }
            self.inputs = inputs
            self.outputs = outputs
            self.stride = stride
            self.weight = weight
            bias = try file.floats("\(name).bias", shape: [outputs])
        }
    }

    init(_ file: SafeTensors) throws {
        let hidden = Self.hidden
        stft = try file.floats("stft_conv.weight", shape: [2 * Self.frequencies, 1, 256])
        conv1 = try Convolution(file, "conv1", inputs: Self.frequencies, outputs: 128, stride: 1)
        conv2 = try Convolution(file, "conv2", inputs: 128, outputs: 64, stride: 2)
        conv3 = try Convolution(file, "conv3", inputs: 64, outputs: 64, stride: 2)
        conv4 = try Convolution(file, "conv4", inputs: 64, outputs: 128, stride: 1)
        let inputWeight = try file.floats("lstm_cell.weight_ih", shape: [4 * hidden, hidden])
        let hiddenWeight = try file.floats("lstm_cell.weight_hh", shape: [4 * hidden, hidden])
        var lstm = [Float](repeating: 0, count: 4 * hidden * 2 * hidden)
        for row in 0..<(4 * hidden) {
            for j in 0..<hidden {
                lstm[row * 2 * hidden + j] = inputWeight[row * hidden + j]
                lstm[row * 2 * hidden + hidden + j] = hiddenWeight[row * hidden + j]
            }
        }
        self.lstm = lstm
        let inputBias = try file.floats("lstm_cell.bias_ih", shape: [4 * hidden])
        let hiddenBias = try file.floats("lstm_cell.bias_hh", shape: [4 * hidden])
        lstmBias = zip(inputBias, hiddenBias).map { $0 + $1 }
        output = try file.floats("final_conv.weight", shape: [1, hidden, 1])
        outputBias = try file.floats("final_conv.bias", shape: [1])[0]
    }
}

/// The build of the C kernels (`CKernels`) for this CPU, chosen once per process.
struct VADKernels: @unchecked Sendable {  // a pointer to a C constant that nothing writes
    let table: UnsafePointer<ck_kernels>

    static let active = VADKernels(table: ck_select(ck_supported_level()))
}
