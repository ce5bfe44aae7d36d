import CKernels
import Foundation

/// Where each stage's data lives in a stream's buffer (in floats). Rows are time-major, and the convolutions' inputs
/// have one zero row before and after (their padding of 1), which nothing writes.
enum Layout {
    /// 64 samples of context, the 512 of the chunk, 64 filled by reflection: 640.
    static let frame = 0
    static let chunk = frame + SileroVAD.contextSize
    static let reflection = chunk + SileroVAD.chunkSize
    /// The STFT: 4 frames × 258 (real parts, then imaginary parts).
    static let spectrum = frame + 640
    /// Magnitudes, 4 frames × 129 between zero rows.
    static let magnitudes = spectrum + 4 * 258
    /// conv1's output, 4 × 128 between zero rows.
    static let conv1 = magnitudes + 6 * 129
    /// conv2's output, 2 × 64 between zero rows.
    static let conv2 = conv1 + 6 * 128
    /// conv3's output, 1 × 64 between zero rows.
    static let conv3 = conv2 + 4 * 64
    /// The LSTM's input: conv4's output (128), then the hidden state (128), which persists.
    static let lstmInput = conv3 + 3 * 64
    static let hidden = lstmInput + 128
    /// The LSTM's cell state (128), which persists.
    static let cell = lstmInput + 256
    /// The LSTM's four gates (4 × 128).
    static let gates = cell + 128
    static let total = gates + 512
}

/// Silero VAD's forward pass for one chunk (see `SileroVAD`), on one thread, with `CKernels`' skinny products.
enum SileroNetwork {
    /// The speech probability of the 576 samples at `buffer + Layout.frame` (context and chunk); updates the LSTM
    /// state in the buffer.
    static func run(_ weights: SileroWeights, _ buffer: UnsafeMutablePointer<Float>) -> Float {
        let kernels = VADKernels.active.table.pointee
        let frame = buffer + Layout.frame
        // Reflection padding on the right (PyTorch's "reflect": the edge sample is not repeated).
        let edge = Layout.reflection - 1
        for j in 0..<64 { frame[Layout.reflection + j] = frame[edge - 1 - j] }

        // STFT as a convolution: 4 frames of 256 samples, 128 apart, against 258 basis rows.
        let spectrum = buffer + Layout.spectrum
        weights.stft.withUnsafeBufferPointer { basis in
            kernels.skinny_f32(0, 258, 4, 256, frame, 128, basis.baseAddress!, 256, spectrum, 258, 1, 0)
        }
        let magnitudes = buffer + Layout.magnitudes + SileroWeights.frequencies  // row 1
        for t in 0..<4 {
            for f in 0..<SileroWeights.frequencies {
                let real = spectrum[t * 258 + f], imaginary = spectrum[t * 258 + SileroWeights.frequencies + f]
                magnitudes[t * SileroWeights.frequencies + f] = (real * real + imaginary * imaginary).squareRoot()
            }
        }

        convolve(weights.conv1, kernels, input: buffer + Layout.magnitudes, frames: 4, output: buffer + Layout.conv1 + 128)
        convolve(weights.conv2, kernels, input: buffer + Layout.conv1, frames: 4, output: buffer + Layout.conv2 + 64)
        convolve(weights.conv3, kernels, input: buffer + Layout.conv2, frames: 2, output: buffer + Layout.conv3 + 64)
        convolve(weights.conv4, kernels, input: buffer + Layout.conv3, frames: 1, output: buffer + Layout.lstmInput)

        // LSTM cell: gates = [W_ih W_hh]·[x; h] + b_ih + b_hh, in the order input, forget, cell, output.
        let hiddenSize = SileroWeights.hidden
        let gates = buffer + Layout.gates
        weights.lstm.withUnsafeBufferPointer { w in
            kernels.skinny_f32(0, 4 * hiddenSize, 1, 2 * hiddenSize, buffer + Layout.lstmInput, 2 * hiddenSize, w.baseAddress!, 2 * hiddenSize, gates, 4 * hiddenSize, 1, 0)
        }
        let hidden = buffer + Layout.hidden
        weights.lstmBias.withUnsafeBufferPointer { bias in
            kernels.lstm_cell(gates, bias.baseAddress!, hiddenSize, buffer + Layout.cell, hidden)
        }
        var logit = weights.outputBias
        weights.output.withUnsafeBufferPointer { output in
            for j in 0..<hiddenSize { logit += max(hidden[j], 0) * output[j] }  // ReLU, then the 1×1 convolution
        }
        return 1 / (1 + expf(-logit))
    }

    /// A kernel-3, padding-1 convolution with ReLU over `frames` time-major rows that sit between zero rows at `input`
    /// (row 0 is the zero row); writes the output rows from `output` on.
    private static func convolve(
        _ layer: SileroWeights.Convolution, _ kernels: ck_kernels, input: UnsafePointer<Float>, frames: Int,
        output: UnsafeMutablePointer<Float>
    ) {
        let outputFrames = (frames - 1) / layer.stride + 1
        // Output frame t reads padded rows stride·t …+2: one contiguous run of 3 × inputs floats.
        layer.weight.withUnsafeBufferPointer { w in
            kernels.skinny_f32(
                0, layer.outputs, Int32(outputFrames), 3 * layer.inputs, input, layer.stride * layer.inputs, w.baseAddress!,
                3 * layer.inputs, output, layer.outputs, 1, 0)
        }
        for t in 0..<outputFrames {
            for o in 0..<layer.outputs { output[t * layer.outputs + o] = max(output[t * layer.outputs + o] + layer.bias[o], 0) }
        }
    }

    private static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}
