import AuralVAD
import Foundation
import Testing
import TestSupport

/// The installed Silero VAD weights and the goldens of `scripts/make-vad-goldens`.
enum VADFixtures {
    /// `<model cache>/silero-vad/silero_vad.safetensors`, installed by `scripts/setup`.
    static var weights: URL { SileroVAD.modelURL(inModelsDirectory: Fixtures.modelsDirectory) }

    /// The recordings the goldens were made from.
    static let recordings = ["beckett.wav", "endgame_nagg_nell.wav", "two_cities.wav"]

    /// The weights, loaded once per process.
    static let vad: SileroVAD? = try? SileroVAD(contentsOf: weights)

    /// The reference's output on one recording (`Golden/<name>.json`).
    struct Golden: Decodable {
        struct Options: Decodable {
            var threshold: Double?
            var neg_threshold: Double?
            var min_speech_duration_ms: Int?
            var max_speech_duration_s: Double?
            var min_silence_duration_ms: Int?
            var speech_pad_ms: Int?
            var use_max_poss_sil_at_max_speech: Bool?

            /// The same options in our names; what is absent keeps silero-vad's default, as in the reference call.
            var segmentOptions: SpeechSegmentOptions {
                var options = SpeechSegmentOptions()
                if let threshold { options.threshold = threshold }
                options.negThreshold = neg_threshold
                if let min_speech_duration_ms { options.minSpeechDurationMs = min_speech_duration_ms }
                options.maxSpeechDurationS = max_speech_duration_s
                if let min_silence_duration_ms { options.minSilenceDurationMs = min_silence_duration_ms }
                if let speech_pad_ms { options.speechPadMs = speech_pad_ms }
                if let use_max_poss_sil_at_max_speech { options.useMaxPossibleSilenceAtMaxSpeech = use_max_poss_sil_at_max_speech }
                return options
            }
        }
        struct Speech: Decodable, Equatable {
            var start: Int
            var end: Int
        }
        struct OptionSet: Decodable {
            var options: Options
            var speeches: [Speech]
        }
        var recording: String
        var samples: Int
        var probabilities: [Float]
        var segments: [String: OptionSet]
    }

    static func golden(_ recording: String) throws -> Golden {
        let name = (recording as NSString).deletingPathExtension + ".json"
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        return try JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs only where `scripts/setup` installed the Silero VAD weights and the recordings.
    static var requiresVAD: Self {
        .enabled(
            if: FileManager.default.fileExists(atPath: VADFixtures.weights.path)
                && Fixtures.missing(audio: VADFixtures.recordings).isEmpty,
            "needs \(VADFixtures.weights.path) and the recordings; scripts/setup installs them")
    }
}
