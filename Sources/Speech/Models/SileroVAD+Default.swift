import AuralVAD
import Foundation

extension SileroVAD {
    /// The weights file in the default model cache (`ModelManager.defaultCacheDirectory`, so `AURALKIT_MODELS_DIR`
    /// and `XDG_CACHE_HOME` apply): `<cache>/silero-vad/silero_vad.safetensors`. Read from the environment at each call.
    public static var defaultModelURL: URL {
        modelURL(inModelsDirectory: ModelManager.defaultCacheDirectory)
    }
}
