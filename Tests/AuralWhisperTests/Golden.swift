import Foundation
@testable import AuralWhisper

/// faster-whisper 1.2.1's output on one recording, as `scripts/make-goldens` wrote it (see Golden/README.md).
struct GoldenTranscript: Decodable {
    struct Call: Decodable {
        var language: String?
        var beamSize: Int
        var wordTimestamps: Bool?
    }
    struct Info: Decodable {
        var language: String
        var languageProbability: Double
    }
    struct GoldenSegment: Decodable {
        var start: Double
        var end: Double
        var text: String
        var tokens: [Int]
        var avgLogprob: Double
        var noSpeechProb: Double
        var words: [[WordField]]?
    }
    /// A word is stored as [word, start, end, probability].
    enum WordField: Decodable {
        case text(String)
        case number(Double)
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { self = .text(s) } else { self = .number(try c.decode(Double.self)) }
        }
        var text: String { if case .text(let s) = self { s } else { "" } }
        var number: Double { if case .number(let d) = self { d } else { .nan } }
    }

    var call: Call
    var info: Info
    var segments: [GoldenSegment]
    var recording: String

    static func load(_ name: String) throws -> GoldenTranscript { try loadGolden(name) }

    /// Words as `WordTiming`s.
    func words(of segment: GoldenSegment) -> [WordTiming] {
        (segment.words ?? []).map { WordTiming(word: $0[0].text, start: $0[1].number, end: $0[2].number, probability: $0[3].number) }
    }
}

/// faster-whisper's features and CTranslate2's encoder output for a recording's first window.
struct GoldenFeatures: Decodable {
    struct Audio: Decodable {
        var numSamples: Int
    }
    struct Mel: Decodable {
        struct Window: Decodable {
            var mean: Double
            var valuesAt: [[Double]]
        }
        var fullShape: [Int]
        var contentFrames: Int
        var fullMax: Double
        var firstWindowSegmentSize: Int
        var firstWindow: Window
    }
    struct EncoderOutput: Decodable {
        var shape: [Int]
        var mean: Double
        var std: Double
        var rowsFirst8: [String: [Double]]
    }
    var audio: Audio
    var mel: Mel
    var encoder: EncoderOutput

    static func load(_ name: String) throws -> GoldenFeatures { try loadGolden(name) }
}

/// Decodes `Golden/<name>.json` (snake_case keys).
func loadGolden<T: Decodable>(_ name: String) throws -> T {
    let url = Fixtures.repositoryRoot.appendingPathComponent("Tests/AuralWhisperTests/Golden/\(name).json")
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return try decoder.decode(T.self, from: Data(contentsOf: url))
}
