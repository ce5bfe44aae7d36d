/// How `AudioConverter`'s `Float` output takes its channels from the input's: `gains[output][input]`, each output
/// channel being the sum of the input channels times their gains.
enum ChannelMatrix {
    /// AuralAudio's default mapping from `inputs` to `outputs` channels, or nil where libswresample's standard mix of
    /// FFmpeg's default layouts applies (more than one channel on both sides and unequal counts, when
    /// `layoutsAreStandard` says both counts have a standard layout).
    static func standard(inputs: Int, outputs: Int, layoutsAreStandard: Bool) -> [[Double]]? {
        if inputs == outputs { return identity(inputs) }
        if inputs == 1 { return Array(repeating: [1], count: outputs) }
        if outputs == 1 { return [Array(repeating: 1 / Double(inputs), count: inputs)] }
        return layoutsAreStandard ? nil : remap(inputs: inputs, outputs: outputs)
    }

    /// Output channel n is input channel n, or silence where the input has no channel n.
    static func remap(inputs: Int, outputs: Int) -> [[Double]] {
        (0..<outputs).map { output in (0..<inputs).map { $0 == output ? 1 : 0 } }
    }

    /// Each channel to itself.
    static func identity(_ channels: Int) -> [[Double]] {
        remap(inputs: channels, outputs: channels)
    }

    /// Whether `matrix` maps each channel to itself at full level, so that libswresample need not mix.
    static func isIdentity(_ matrix: [[Double]]) -> Bool {
        matrix.count == matrix.first?.count && matrix == identity(matrix.count)
    }

    /// Why `matrix` cannot map `inputs` to `outputs` channels, or nil when it can: it needs `outputs` rows of
    /// `inputs` finite gains.
    static func problem(with matrix: [[Double]], inputs: Int, outputs: Int) -> String? {
        guard matrix.count == outputs, matrix.allSatisfy({ $0.count == inputs }) else {
            let shape = matrix.map { String($0.count) }.joined(separator: ", ")
            return "The channel matrix needs \(outputs) rows of \(inputs) gains; it has rows of [\(shape)]."
        }
        guard matrix.allSatisfy({ $0.allSatisfy(\.isFinite) }) else {
            return "The channel matrix holds a gain that is not a finite number."
        }
        return nil
    }

    /// The matrix row after row, as libswresample's `swr_set_matrix` takes it (a row's stride is `inputs`).
    static func flattened(_ matrix: [[Double]]) -> [Double] {
        matrix.flatMap { $0 }
    }
}
