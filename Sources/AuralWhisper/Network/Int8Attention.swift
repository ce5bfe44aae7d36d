import CKernels

/// The encoder's self-attention with both products in int8, oneDNN's u8·s8 → s32 product on CPUs with AVX-512 VNNI,
/// where it takes about a quarter of the float32 product's time (docs/engine.md). Each query row, key row (position)
/// and value column (channel) is quantized with its own step, as the int8 weights' products quantize activations;
/// the softmax weights are quantized per row after the softmax. The numbers differ from the float32 products by the
/// rounding of 8-bit values; the text was measured (docs/streaming.md).
///
/// Used for the int8 compute type only where `Int8GEMM.usesVNNI`: without VNNI, oneDNN's product saturates 16-bit
/// pair sums, which products of two activations would meet far more often than products with weights.
enum Int8Attention {
    /// Whether the encoder's self-attention runs in int8 for a model of `computeType` on this CPU.
    static func applies(to computeType: ComputeType) -> Bool {
        computeType == .int8 && Int8GEMM.usesVNNI && (try? OneDNN.loaded.get()) != nil
    }

    /// Every head's keys (per position) and values (per channel) quantized once for all query blocks.
    private struct QuantizedHeads {
        let keyCount: Int
        let headWidth: Int
        /// [heads × keyCount × headWidth] int8 keys, their steps [heads × keyCount] and −128 · row sums, which take
        /// the queries' offset back out.
        let keys: Storage<Int8>
        let keySteps: Storage<Float>
        let keyOffsets: Storage<Int32>
        /// [heads × keyCount × headWidth] int8 values and their steps [heads × headWidth], one per channel.
        let values: Storage<Int8>
        let valueSteps: Storage<Float>
        /// headWidth zeros: the softmax weights have no offset.
        let noOffsets: Storage<Int32>

        init(heads: Int, keyCount: Int, headWidth: Int) {
            self.keyCount = keyCount
            self.headWidth = headWidth
            // Every head is quantized in full before any is read; only the zero offsets rely on the zero-fill.
            keys = Storage(uninitializedCount: heads * keyCount * headWidth)
            keySteps = Storage(uninitializedCount: heads * keyCount)
            keyOffsets = Storage(uninitializedCount: heads * keyCount)
            values = Storage(uninitializedCount: heads * keyCount * headWidth)
            valueSteps = Storage(uninitializedCount: heads * headWidth)
            noOffsets = Storage(count: headWidth)
        }

        /// Quantizes head `h`'s keys and values (rows `keyStride` apart, the head's columns at h · headWidth).
        func quantize(
            head h: Int, keys source: UnsafePointer<Float>, values valueSource: UnsafePointer<Float>, keyStride: Int
        ) {
            let offset = h * headWidth
            let headKeys = keys.pointer + h * keyCount * headWidth
            KernelSet.active.table.pointee.quantize_rows(
                source + offset, keyCount, headWidth, keyStride, headKeys, headWidth, keySteps.pointer + h * keyCount,
                127, 0)
            for t in 0..<keyCount {
                var sum: Int32 = 0
                for c in 0..<headWidth { sum &+= Int32(headKeys[t * headWidth + c]) }
                keyOffsets.pointer[h * keyCount + t] = -128 &* sum
            }
            ck_quantize_columns(
                valueSource + offset, keyCount, headWidth, keyStride, values.pointer + h * keyCount * headWidth,
                headWidth, valueSteps.pointer + h * headWidth)
        }
    }

    /// Scratch of one pool thread for blocks of up to `rows` queries.
    private struct BlockScratch {
        let queries: Storage<UInt8>
        let querySteps: Storage<Float>
        let sums: Storage<Int32>
        let weights: Storage<UInt8>
        let weightSteps: Storage<Float>
        let outputSums: Storage<Int32>

        init(rows: Int, keyCount: Int, headWidth: Int) {
            // A block's rows of each buffer are written before they are read.
            queries = Storage(uninitializedCount: rows * headWidth)
            querySteps = Storage(uninitializedCount: rows)
            sums = Storage(uninitializedCount: rows * keyCount)
            weights = Storage(uninitializedCount: rows * keyCount)
            weightSteps = Storage(uninitializedCount: rows)
            outputSums = Storage(uninitializedCount: rows * headWidth)
        }
    }

    /// `Attention.multiHead`'s blocked path with int8 products: for each head, the keys and values are quantized
    /// once; each block of `blockRows` queries then runs scores, softmax and weighted values on one pool thread.
    static func blocked(
        queries: UnsafePointer<Float>, queryStride: Int, keys: UnsafePointer<Float>, values: UnsafePointer<Float>,
        keyStride: Int, queryCount: Int, keyCount: Int, heads: Int, headWidth: Int,
        blocks: Int, largestBlock: Int, blockRows: (Int) -> Range<Int>,
        scores: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>, outputStride: Int
    ) {
        guard case .success(let oneDNN) = OneDNN.loaded else { preconditionFailure("int8 attention without oneDNN") }
        let quantized = QuantizedHeads(heads: heads, keyCount: keyCount, headWidth: headWidth)
        WorkerPool.current.run(parts: heads) { h in
            quantized.quantize(head: h, keys: keys, values: values, keyStride: keyStride)
        }
        let scale = 1 / Float(headWidth).squareRoot()
        let table = KernelSet.active.table.pointee
        let parts = min(WorkerPool.current.threads, blocks)
        WorkerPool.current.run(parts: parts) { part in
            let blockScores = scores + part * largestBlock * keyCount
            let scratch = BlockScratch(rows: largestBlock, keyCount: keyCount, headWidth: headWidth)
            for h in 0..<heads {
                let offset = h * headWidth
                let headKeys = quantized.keys.pointer + h * keyCount * headWidth
                let headValues = quantized.values.pointer + h * keyCount * headWidth
                for block in stride(from: part, to: blocks, by: parts) {
                    let rows = blockRows(block)
                    let queryBytes = rows.count * headWidth
                    scratch.queries.pointer.withMemoryRebound(to: Int8.self, capacity: queryBytes) { signed in
                        table.quantize_rows(
                            queries + rows.lowerBound * queryStride + offset, rows.count, headWidth, queryStride,
                            signed, headWidth, scratch.querySteps.pointer, 127, 128)
                    }
                    var ok = oneDNN.multiply(
                        rows: rows.count, n: keyCount, k: headWidth, a: scratch.queries.pointer, lda: headWidth,
                        b: headKeys, ldb: headWidth, columnOffsets: quantized.keyOffsets.pointer + h * keyCount,
                        c: scratch.sums.pointer, ldc: keyCount)
                    precondition(ok, "oneDNN's int8 product failed on attention scores")
                    // The scores' floats go in this thread's block of the scores scratch.
                    ck_softmax_to_u8(
                        scratch.sums.pointer, rows.count, keyCount, keyCount, scratch.querySteps.pointer,
                        quantized.keySteps.pointer + h * keyCount, scale, blockScores, scratch.weights.pointer,
                        keyCount, scratch.weightSteps.pointer)
                    ok = oneDNN.multiply(
                        rows: rows.count, n: headWidth, k: keyCount, a: scratch.weights.pointer, lda: keyCount,
                        b: headValues, ldb: headWidth, transposedB: false, columnOffsets: quantized.noOffsets.pointer,
                        c: scratch.outputSums.pointer, ldc: headWidth)
                    precondition(ok, "oneDNN's int8 product failed on attention values")
                    table.dequantize_rows(
                        scratch.outputSums.pointer, rows.count, headWidth, headWidth, scratch.weightSteps.pointer,
                        quantized.valueSteps.pointer + h * headWidth, nil,
                        output + rows.lowerBound * outputStride + offset, outputStride, 0)
                }
            }
        }
    }
}
