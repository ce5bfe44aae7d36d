extension SileroVAD {
    /// Silero VAD over audio that arrives in pieces of any length: the state of one audio stream (the LSTM's state,
    /// the last 64 samples, and the samples of an unfinished chunk).
    ///
    /// ```swift
    /// var stream = vad.stream()
    /// for await buffer in microphone {
    ///     for probability in stream.append(buffer) { … }      // chunk `stream.chunkCount - 1` is the latest
    /// }
    /// ```
    ///
    /// Appending a recording in any pieces gives the probabilities of `SileroVAD.probabilities(for:)` on the whole
    /// recording, chunk for chunk. A value type: a copy carries on independently. Not to be shared between threads
    /// while appending (copy it instead); computes on the calling thread.
    public struct Stream: Sendable {
        let weights: SileroWeights
        /// The network's buffers and state (see `Layout`); persistent: the context, the samples of the open chunk,
        /// the LSTM's hidden and cell state.
        var buffer: [Float]
        /// Samples of the open chunk received so far (0..<512).
        public private(set) var pendingSampleCount = 0
        /// Chunks completed since the start or the last `reset()`; chunk `i` covers samples `512·i ..< 512·(i+1)`.
        public private(set) var chunkCount = 0

        init(weights: SileroWeights) {
            self.weights = weights
            buffer = [Float](repeating: 0, count: Layout.total)
        }

        /// Adds 16 kHz mono samples and returns the probability of each chunk they complete (none until 512 samples
        /// have been collected; several for a long piece).
        public mutating func append(_ samples: some Collection<Float>) -> [Float] {
            var probabilities: [Float] = []
            probabilities.reserveCapacity((pendingSampleCount + samples.count) / SileroVAD.chunkSize)
            var index = samples.startIndex
            while index != samples.endIndex {
                let take = min(SileroVAD.chunkSize - pendingSampleCount, samples.distance(from: index, to: samples.endIndex))
                let end = samples.index(index, offsetBy: take)
                let start = Layout.chunk + pendingSampleCount
                buffer.withUnsafeMutableBufferPointer { buffer in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + take)]).initialize(from: samples[index..<end])
                }
                pendingSampleCount += take
                index = end
                if pendingSampleCount == SileroVAD.chunkSize { probabilities.append(runChunk()) }
            }
            return probabilities
        }

        /// Completes the open chunk with zeros and returns its probability (none when no samples are pending), as
        /// silero-vad pads a recording's last chunk; then starts over as `reset()` does.
        public mutating func finish() -> [Float] {
            defer { reset() }
            guard pendingSampleCount > 0 else { return [] }
            return append(repeatElement(Float(0), count: SileroVAD.chunkSize - pendingSampleCount))
        }

        /// Forgets all audio: zero state and context, no pending samples, `chunkCount` 0. Safe to call at any time.
        public mutating func reset() {
            for i in buffer.indices { buffer[i] = 0 }
            pendingSampleCount = 0
            chunkCount = 0
        }

        /// Runs the network on the full chunk and moves its last 64 samples into the context.
        private mutating func runChunk() -> Float {
            let weights = weights
            let probability = buffer.withUnsafeMutableBufferPointer { buffer in
                SileroNetwork.run(weights, buffer.baseAddress!)
            }
            buffer.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                base.update(from: base + SileroVAD.chunkSize, count: SileroVAD.contextSize)
            }
            pendingSampleCount = 0
            chunkCount += 1
            return probability
        }
    }
}
