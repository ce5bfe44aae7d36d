/// Spoken-language identification: one decoder step from start-of-transcript over a window's audio, softmax over the
/// language tokens only (`openai/whisper:whisper/decoding.py detect_language`, CTranslate2 `detect_language`).
enum LanguageDetector {
    /// Probabilities of every language the model knows, highest first.
    static func probabilities(model: WhisperModel, encoderOutput: Tensor, audioLength: Int) -> [LanguageProbability] {
        let tokenizer = model.tokenizer
        let state = DecoderState(weights: model.decoder, encoderOutput: encoderOutput, audioLength: audioLength)
        let hidden = state.forward([[tokenizer.sot]])
        let logits = state.logits(hidden, rows: [0])
        let codes = tokenizer.languageCodes
        let ids = codes.map { tokenizer.languageToken(for: $0)! }
        let values = ids.map { logits[$0] }
        let maxValue = values.max() ?? 0
        let exps = values.map { Double(expf($0 - maxValue)) }
        let total = exps.reduce(0, +)
        return zip(codes, exps)
            .map { LanguageProbability(language: $0, probability: $1 / total) }
            .sorted { $0.probability > $1.probability }
    }
}

import Foundation
