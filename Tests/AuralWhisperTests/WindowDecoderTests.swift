import Foundation
import Testing
import TestSupport
@testable import AuralWhisper

@Suite("WindowDecoder", .heavyWork)
struct WindowDecoderTests {
    static let options = DecodingOptions(language: "en", temperatures: [0], withoutTimestamps: true)

    static func request() -> WindowRequest {
        WindowRequest(language: "en", previousTokens: [], prefixTokens: [], alignsPrefix: false, timeOffset: 0, lastSpeechTime: 0)
    }

    @Test("a window shorter than 30 s runs the encoder on fewer positions and still transcribes the audio in it")
    func shortWindow() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let samples = try Fixtures.samples("beckett.wav")  // 10 s
        let full = try decoder.encode(samples)
        let short = try decoder.encode(samples, windowFrames: 1200)
        #expect(full.positions == 1500)
        #expect(short.positions == 600)
        #expect(short.contentFrames == full.contentFrames)
        let fullText = decoder.text(of: try decoder.decode(full, request: Self.request(), options: Self.options).tokens)
        let shortText = decoder.text(of: try decoder.decode(short, request: Self.request(), options: Self.options).tokens)
        // Whisper never saw a window other than 30 s in training, so the text may change (docs/streaming.md measured
        // it), but the speech is still heard: most words agree.
        #expect(WordErrorRate.percent(reference: fullText, hypothesis: shortText) <= 50, "\(shortText)\nvs\n\(fullText)")
    }

    @Test("audio longer than the shortened window keeps what fits")
    func audioLongerThanWindow() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"), windowFrames: 400)
        #expect(window.contentFrames == 400)
        #expect(window.positions == 200)
    }

    @Test("an encode that reuses a kept encode of the same audio matches the full encode")
    func reuseOfTheSameAudio() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let samples = try Fixtures.samples("beckett.wav")  // 10 s
        let full = try decoder.encode(samples)
        let kept = try decoder.encodeForReuse(samples)
        let reused = try decoder.encode(samples, computing: 0..<11, reusing: kept)
        #expect(reused.positions == 1500 && reused.contentFrames == full.contentFrames)
        // The same products on the same rows: only the summation order of the attention's products may differ with
        // the number of query rows (BLAS's blocking), a few float32 roundings on values of order 1.
        var worst: Float = 0
        for i in 0..<full.output.count { worst = max(worst, abs(full.output[i] - reused.output[i])) }
        #expect(worst < 1e-3, "largest difference \(worst)")
        var keptWorst: Float = 0
        for i in 0..<full.output.count { keptWorst = max(keptWorst, abs(full.output[i] - kept.window.output[i])) }
        #expect(keptWorst < 1e-3, "largest difference of the kept encode \(keptWorst)")
    }

    @Test("an encode of grown audio that reuses an earlier encode's padding, or its padding and older audio, gives the full encode's text",
          arguments: [0.0, 4.0])
    func reuseOfGrownAudio(computedFrom: Double) throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let samples = try Fixtures.samples("two_cities.wav")
        let earlier = Array(samples.prefix(6 * 16_000))
        let grown = Array(samples.prefix(10 * 16_000))
        let kept = try decoder.encodeForReuse(earlier)
        let reused = try decoder.encode(grown, computing: computedFrom..<11, reusing: kept)
        let full = try decoder.encode(grown)
        let fullText = decoder.text(of: try decoder.decode(full, request: Self.request(), options: Self.options).tokens)
        let reusedText = decoder.text(of: try decoder.decode(reused, request: Self.request(), options: Self.options).tokens)
        #expect(!fullText.isEmpty)
        #expect(reusedText == fullText)
        // The padding after the fresh part is the earlier encode's: it differs from the full encode's, which heard
        // 4 s more audio.
        let width = decoder.model.modelWidth
        // Positions before the computed seconds are the earlier encode's, exactly.
        let firstComputed = Int(computedFrom / 0.02) * width
        #expect((0..<firstComputed).allSatisfy { reused.output[$0] == kept.window.output[$0] })
        var paddingDifference: Float = 0
        for i in (600 * width)..<(1500 * width) { paddingDifference = max(paddingDifference, abs(full.output[i] - reused.output[i])) }
        #expect(paddingDifference > 0)
    }

    @Test("a window that reuses a kept encode takes the decoder's cross-attention of the kept positions from the kept encode's decode, with the same result",
          arguments: [ComputeType.int8, .float32])
    func crossAttentionReuse(computeType: ComputeType) throws {
        let model = computeType == .float32 ? try Fixtures.model("tiny.en") : try WhisperModel(folder: Fixtures.modelFolder("tiny.en"), computeType: .int8)
        let decoder = WindowDecoder(model: model)
        let samples = try Fixtures.samples("two_cities.wav")
        let kept = try decoder.encodeForReuse(Array(samples.prefix(6 * 16_000)))
        var options = Self.options
        options.wordTimestamps = true
        // The kept encode's own decode fills the store; the grown window's decode reuses it.
        #expect(!kept.crossAttention.isFilled)
        _ = try decoder.decode(kept.window, request: Self.request(), options: options)
        #expect(kept.crossAttention.isFilled)
        let reused = try decoder.encode(Array(samples.prefix(10 * 16_000)), computing: 4..<11, reusing: kept)
        #expect(reused.crossAttentionReuse?.fresh == 200..<550)
        var projectedAgain = reused
        projectedAgain.crossAttentionReuse = nil
        let withReuse = try decoder.decode(reused, request: Self.request(), options: options)
        let without = try decoder.decode(projectedAgain, request: Self.request(), options: options)
        #expect(!withReuse.tokens.isEmpty)
        #expect(withReuse.tokens == without.tokens)
        let words = withReuse.segments.flatMap { $0.words ?? [] }, wordsWithout = without.segments.flatMap { $0.words ?? [] }
        try #require(words.count == wordsWithout.count && words.count > 10)
        for (a, b) in zip(words, wordsWithout) {
            #expect(a.word == b.word && a.start == b.start && a.end == b.end)
            // int8: each position's projection is an exact integer sum, the same bits alone or among all positions.
            // float32: BLAS may block 350 rows differently from 1,500, changing the last bits of a sum.
            let tolerance = computeType == .int8 ? 0 : 1e-5
            #expect(abs(a.probability - b.probability) <= tolerance, "\(a.word): \(a.probability) vs \(b.probability)")
        }
    }

    @Test("an aligned prefix that is not scored keeps the new words' times and probabilities, and its own words count as certain")
    func unscoredPrefix() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"))
        var options = Self.options
        options.wordTimestamps = true
        var request = Self.request()
        request.prefixTokens = decoder.tokens(of: " Ever tried.")
        request.alignsPrefix = true
        let scored = try decoder.decode(window, request: request, options: options).segments.flatMap { $0.words ?? [] }
        request.scoresPrefix = false
        let unscored = try decoder.decode(window, request: request, options: options).segments.flatMap { $0.words ?? [] }
        try #require(scored.count > 2 && unscored.count == scored.count, "\(scored.map(\.word)) vs \(unscored.map(\.word))")
        #expect(unscored.map(\.word) == scored.map(\.word))
        #expect(unscored[0].probability == 1 && unscored[1].probability == 1, "the prefix's words")
        #expect(scored[0].probability < 1 || scored[1].probability < 1, "the scored prefix's words")
        for (a, b) in zip(scored[2...], unscored[2...]) {
            #expect(a.start == b.start && a.end == b.end)
            // The same logits of the same rows: only the product's row blocking may change the last bits.
            #expect(abs(a.probability - b.probability) < 1e-5, "\(a.word): \(a.probability) vs \(b.probability)")
        }
    }
}

@Suite("WindowDecoder cancellation", .heavyWork)
struct WindowDecoderCancellationTests {
    @Test("a decode asked to stop ends at the next token, without segments, at every temperature and beam size",
          arguments: [(temperature: 0.0, beamSize: 1), (temperature: 0.0, beamSize: 5), (temperature: 0.4, beamSize: 1)])
    func stopsAtTheNextToken(temperature: Double, beamSize: Int) throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"))
        let options = DecodingOptions(language: "en", temperatures: [temperature], beamSize: beamSize, wordTimestamps: true)
        let filters = LogitFilterSet.make(options: options, model: decoder.model)
        func decode(stoppingAfter steps: Int?) -> WindowResult {
            var asked = 0
            var generator = SplitMix64(seed: options.seed)
            return decoder.compute.run {
                decoder.decode(
                    window, request: WindowDecoderTests.request(), options: options, filters: filters,
                    generator: &generator, isCancelled: {
                        asked += 1
                        return steps.map { asked > $0 } ?? false
                    })
            }
        }
        let whole = decode(stoppingAfter: nil)
        #expect(whole.tokens.count > 10 && !whole.segments.isEmpty)
        let stopped = decode(stoppingAfter: 3)
        // Three steps ran, each adding one token to every beam; the longest hypothesis has three.
        #expect(stopped.tokens.count <= 3)
        #expect(stopped.segments.isEmpty)
    }
}

@Suite("WindowDecoder draft", .heavyWork)
struct WindowDecoderDraftTests {
    /// A live decode's request and options: beam 3, no timestamps, the committed words forced.
    static func liveDecode(
        _ decoder: WindowDecoder, _ window: EncodedWindow, draft: [Int]
    ) -> (result: WindowResult, steps: Int) {
        let options = DecodingOptions(language: "en", temperatures: [0], beamSize: 3, withoutTimestamps: true)
        var request = WindowDecoderTests.request()
        request.prefixTokens = decoder.tokens(of: " Ever tried.")
        request.draftTokens = draft
        let filters = LogitFilterSet.make(options: options, model: decoder.model)
        var generator = SplitMix64(seed: options.seed)
        var steps = 0
        let result = decoder.compute.run {
            decoder.decode(window, request: request, options: options, filters: filters, generator: &generator, isCancelled: {
                steps += 1
                return false
            })
        }
        return (result, steps)
    }

    @Test("a draft of what the audio says gives the same text and score in fewer steps")
    func draftOfTheSameWords() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"))
        let plain = Self.liveDecode(decoder, window, draft: [])
        try #require(plain.result.tokens.count > 10, "\(decoder.text(of: plain.result.tokens))")
        let drafted = Self.liveDecode(decoder, window, draft: plain.result.tokens)
        #expect(drafted.result.tokens == plain.result.tokens, "\(decoder.text(of: drafted.result.tokens))")
        // The draft's log probabilities come from rows of one many-row pass instead of one-row steps: the same
        // products, blocked differently, so a sum of about 20 log probabilities may differ in its last bits.
        #expect(abs(drafted.result.avgLogprob - plain.result.avgLogprob) < 1e-3)
        // beckett.wav is clearly spoken: most of its tokens are likely enough to be taken without a step.
        #expect(drafted.steps < plain.steps - plain.result.tokens.count / 2, "\(drafted.steps) steps against \(plain.steps)")
    }

    @Test("a draft of words the audio does not say is dropped: the same text and steps as without one")
    func draftOfOtherWords() throws {
        let decoder = WindowDecoder(model: try Fixtures.model("tiny.en"))
        let window = try decoder.encode(try Fixtures.samples("beckett.wav"))
        let plain = Self.liveDecode(decoder, window, draft: [])
        let drafted = Self.liveDecode(decoder, window, draft: decoder.tokens(of: " Bananas grow on the moon."))
        #expect(drafted.result.tokens == plain.result.tokens, "\(decoder.text(of: drafted.result.tokens))")
        // The prompt's rows went through a pass with the draft's rows too, whose products BLAS may block
        // differently: the last bits of a few sums.
        #expect(abs(drafted.result.avgLogprob - plain.result.avgLogprob) < 1e-3)
        #expect(drafted.steps == plain.steps)
    }
}
