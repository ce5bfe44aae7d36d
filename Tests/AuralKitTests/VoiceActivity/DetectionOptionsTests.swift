import AuralVAD
import Foundation
import Testing
import TestSupport
@testable import AuralKit
@testable import Speech

@Suite("SpeechDetector.DetectionOptions")
struct DetectionOptionsTests {
    @Test("a higher sensitivity needs more evidence of speech and ends it sooner")
    func ordering() {
        let levels = SpeechDetector.SensitivityLevel.allCases.map(SpeechDetector.DetectionOptions.init(sensitivityLevel:))
        for (lower, higher) in zip(levels, levels.dropFirst()) {
            #expect(lower.threshold < higher.threshold)
            #expect(lower.minimumSpeechDuration < higher.minimumSpeechDuration)
            #expect(lower.minimumSilenceDuration > higher.minimumSilenceDuration)
            #expect(lower.speechPadding > higher.speechPadding)
        }
    }

    @Test("the minimum silence is at least twice the padding, so live segments equal the batch ones", arguments: SpeechDetector.SensitivityLevel.allCases)
    func silenceCoversPadding(level: SpeechDetector.SensitivityLevel) {
        let options = SpeechDetector.DetectionOptions(sensitivityLevel: level).segmentOptions
        #expect(options.minSilenceDurationMs >= 2 * options.speechPadMs)
    }

    @Test("the segment options carry the documented values in milliseconds", arguments: SpeechDetector.SensitivityLevel.allCases)
    func segmentOptions(level: SpeechDetector.SensitivityLevel) {
        let options = SpeechDetector.DetectionOptions(sensitivityLevel: level)
        let segment = options.segmentOptions
        #expect(segment.threshold == options.threshold)
        #expect(segment.negThreshold == nil)
        #expect(segment.minSpeechDurationMs == Int(options.minimumSpeechDuration * 1000 + 0.5))
        #expect(segment.minSilenceDurationMs == Int(options.minimumSilenceDuration * 1000 + 0.5))
        #expect(segment.speechPadMs == Int(options.speechPadding * 1000 + 0.5))
        #expect(segment.maxSpeechDurationS == nil)
    }

    @Test("medium keeps silero-vad's threshold, with a minimum speech short enough for a one-word answer")
    func medium() {
        let medium = SpeechDetector.DetectionOptions(sensitivityLevel: .medium).segmentOptions
        #expect(medium.threshold == SpeechSegmentOptions().threshold)
        #expect(medium.minSpeechDurationMs == 150)
    }
}

@Suite("Silero VAD weights location")
struct VoiceActivityModelLocationTests {
    @Test("the weights are in the silero-vad folder of the manager's cache, and that folder is not a Whisper model")
    func location() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-vad-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let manager = ModelManager(cacheDirectory: cache)
        #expect(manager.voiceActivityModelURL == cache.appendingPathComponent("silero-vad/silero_vad.safetensors"))
        try FileManager.default.createDirectory(at: manager.voiceActivityModelURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(await manager.installedModels().isEmpty)
        #expect(SileroVAD.defaultModelURL == SileroVAD.modelURL(inModelsDirectory: ModelManager.defaultCacheDirectory))
    }
}
