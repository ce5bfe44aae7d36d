/// The token sequence a window's decoding starts from: earlier text after `<|startofprev|>`, the start-of-transcript
/// sequence (language and task on multilingual models), `<|notimestamps|>` when timestamps are off, and a forced
/// prefix. Follows faster-whisper's `get_prompt`.
public struct PromptBuilder: Sendable {
    /// The model whose special tokens the prompt uses.
    public let model: WhisperModel

    public init(model: WhisperModel) { self.model = model }

    /// `<|startoftranscript|>`, then on a multilingual model the language and the task token.
    /// - Precondition: `language` is one the model knows (see `WindowDecoder.resolveLanguage`).
    public static func startOfTranscript(model: WhisperModel, language: String, task: WhisperTask) -> [Int] {
        let tokenizer = model.tokenizer
        guard model.isMultilingual, let languageToken = tokenizer.languageToken(for: language) else { return [tokenizer.sot] }
        return [tokenizer.sot, languageToken, task == .translate ? tokenizer.translate : tokenizer.transcribe]
    }

    /// The whole prompt. `previous` is cut to its last 223 tokens and `prefix` to its first 223 (half the decoder's
    /// 448 positions, less one), as faster-whisper cuts them.
    public func prompt(previous: [Int], sotSequence: [Int], prefix: [Int], withoutTimestamps: Bool) -> [Int] {
        let tokenizer = model.tokenizer
        let half = model.textContext / 2 - 1
        var prompt: [Int] = []
        if !previous.isEmpty {
            prompt.append(tokenizer.startOfPrev)
            prompt += previous.suffix(half)
        }
        prompt += sotSequence
        if withoutTimestamps { prompt.append(tokenizer.noTimestamps) }
        if !prefix.isEmpty {
            if !withoutTimestamps { prompt.append(tokenizer.timestampBegin) }
            prompt += prefix.prefix(half)
        }
        return prompt
    }
}
