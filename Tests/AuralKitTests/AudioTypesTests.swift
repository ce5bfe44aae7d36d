import AuralAudio
import AuralKit
import Foundation
import TestSupport
import Testing

/// AuralKit names the audio types its API shows; they are AuralAudio's own types, and a file importing both
/// modules uses them without ambiguity.
@Suite("AuralKit's audio types")
struct AudioTypesTests {
    @Test("are AuralAudio's types, usable with both modules imported")
    func sameTypes() {
        #expect(AuralKit.AudioBuffer.self == AuralAudio.AudioBuffer.self)
        #expect(AuralKit.AudioFormat.self == AuralAudio.AudioFormat.self)
        #expect(AuralKit.AudioInputInfo.self == AuralAudio.AudioInputInfo.self)
        #expect(AuralKit.SystemAudioTarget.self == PulseSystemAudioSource.Target.self)
        let source: any AudioSource = BufferSource(samples: [0])
        let sameSource: any AuralKit.AudioSource = source
        #expect(sameSource === source)
        let buffer = AudioBuffer(samples: [0, 0], format: .whisper, startTime: 0)
        #expect(buffer.duration == 2.0 / 16_000)
        let target: SystemAudioTarget = .application(id: 3)
        #expect(target == PulseSystemAudioSource.Target.application(id: 3))
    }
}
