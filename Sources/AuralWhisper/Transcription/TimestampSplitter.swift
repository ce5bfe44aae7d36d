/// Cuts a window's tokens into segments at pairs of consecutive timestamp tokens (faster-whisper
/// `_split_segments_by_timestamps`), and says how much of the window they account for.
struct TimestampSplitter {
    /// The first timestamp token (`<|0.00|>`); every token from it up is a timestamp.
    let timestampBegin: Int

    struct Split {
        var pieces: [PendingSegment]
        /// Mel frames of the window the pieces account for.
        var consumedFrames: Int
        /// Whether the tokens end with one timestamp after text (the window's speech ended inside it).
        var singleTimestampEnding: Bool
    }

    func split(tokens: [Int], timeOffset: Double, segmentSize: Int) -> Split {
        let begin = timestampBegin
        let step = WhisperTime.secondsPerPosition
        let singleTimestampEnding = tokens.count >= 2 && tokens[tokens.count - 2] < begin && tokens[tokens.count - 1] >= begin
        let consecutive = tokens.indices.filter { $0 > 0 && tokens[$0] >= begin && tokens[$0 - 1] >= begin }
        var pieces: [PendingSegment] = []
        var consumed = 0
        if !consecutive.isEmpty {
            var slices = consecutive
            if singleTimestampEnding { slices.append(tokens.count) }
            var lastSlice = 0
            for current in slices {
                let sliced = Array(tokens[lastSlice..<current])
                let start = timeOffset + Double(sliced[0] - begin) * step
                let end = timeOffset + Double(sliced[sliced.count - 1] - begin) * step
                pieces.append(PendingSegment(start: start, end: end, tokens: sliced))
                lastSlice = current
            }
            // A timestamp step is two mel frames.
            consumed = singleTimestampEnding ? segmentSize : (tokens[lastSlice - 1] - begin) * 2
        } else {
            var duration = WhisperTime.seconds(frame: segmentSize)
            if let last = tokens.last(where: { $0 >= begin }), last != begin {
                duration = Double(last - begin) * step
            }
            pieces.append(PendingSegment(start: timeOffset, end: timeOffset + duration, tokens: tokens))
            consumed = segmentSize
        }
        return Split(pieces: pieces, consumedFrames: consumed, singleTimestampEnding: singleTimestampEnding)
    }
}

/// A segment of one window before it is accepted: its times, its tokens (timestamps included), and its words.
struct PendingSegment {
    var start: Double
    var end: Double
    var tokens: [Int]
    var words: [WordTiming]?
}
