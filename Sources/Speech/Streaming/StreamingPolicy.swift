/// When a live session's words become final.
public enum StreamingPolicy: Sendable, Hashable {
    /// A word is final once two consecutive decodes agree on it and on every word before it (whisper_streaming's
    /// LocalAgreement-2). The default: the final text stays closest to the file transcription's.
    case localAgreement
    /// A word is final as soon as the alignment heads place its end at least `margin` seconds before the end of the
    /// audio heard so far and it is not the decode's last word, as SimulStreaming's AlignAtt commits by
    /// cross-attention; words two decodes agree on are final too. Finals come sooner, at some cost in accuracy
    /// (`docs/streaming.md`).
    case alignedCommit(margin: Double)
}
