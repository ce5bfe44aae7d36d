import AuralVAD

/// faster-whisper 1.2.1's `vad_filter`: the speech Silero VAD finds, cut out and joined (`collect_chunks`), and the
/// way back from times in the joined audio to times in the original (`SpeechTimestampsMap` and
/// `restore_speech_timestamps`).
struct SpeechFilter {
    /// The speech ranges of the original audio, in samples.
    let ranges: [Range<Int>]
    /// The speech, joined.
    let speech: [Float]
    /// Per range: where it ends in the joined audio, in samples (`chunk_end_sample`).
    private let chunkEnds: [Int]
    /// Per range: the seconds of audio left out before it (`total_silence_before`).
    private let silenceBefore: [Double]

    init(samples: [Float], detector: SileroVAD, options: SpeechSegmentOptions) {
        ranges = SpeechSegments.detect(
            probabilities: detector.probabilities(for: samples), sampleCount: samples.count, options: options)
        var speech: [Float] = []
        speech.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
        var chunkEnds: [Int] = [], silenceBefore: [Double] = []
        var previousEnd = 0, silent = 0
        for range in ranges {
            speech += samples[range]
            silent += range.lowerBound - previousEnd
            previousEnd = range.upperBound
            chunkEnds.append(range.upperBound - silent)
            silenceBefore.append(Double(silent) / Double(WhisperTime.sampleRate))
        }
        self.speech = speech
        self.chunkEnds = chunkEnds
        self.silenceBefore = silenceBefore
    }

    /// `segment` with its and its words' times moved to the original audio. With words, each word keeps to the range
    /// its middle falls in, and the segment spans its words; without, the start and end are mapped on their own.
    func restore(_ segment: Segment) -> Segment {
        guard !ranges.isEmpty else { return segment }
        var segment = segment
        if let words = segment.words, !words.isEmpty {
            let mapped = words.map { word in
                var word = word
                let chunk = chunkIndex((word.start + word.end) / 2, isEnd: false)
                word.start = originalTime(word.start, chunk: chunk)
                word.end = originalTime(word.end, chunk: chunk)
                return word
            }
            segment.words = mapped
            segment.start = mapped[0].start
            segment.end = mapped[mapped.count - 1].end
        } else {
            segment.start = originalTime(segment.start, chunk: chunkIndex(segment.start, isEnd: false))
            segment.end = originalTime(segment.end, chunk: chunkIndex(segment.end, isEnd: true))
        }
        return segment
    }

    /// The range a time of the joined audio falls in (`get_chunk_index`): the first whose end is after it, or the
    /// one it ends exactly when `isEnd`.
    private func chunkIndex(_ time: Double, isEnd: Bool) -> Int {
        let sample = Int(time * Double(WhisperTime.sampleRate))
        if isEnd, let exact = chunkEnds.firstIndex(of: sample) { return exact }
        let after = chunkEnds.firstIndex { $0 > sample } ?? chunkEnds.count  // bisect_right
        return min(after, chunkEnds.count - 1)
    }

    /// The time in the original audio, rounded to 10 ms as faster-whisper rounds it.
    private func originalTime(_ time: Double, chunk: Int) -> Double {
        ((silenceBefore[chunk] + time) * 100).rounded(.toNearestOrEven) / 100
    }
}
