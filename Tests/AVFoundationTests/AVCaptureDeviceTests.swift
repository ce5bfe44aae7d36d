import AVFoundation
import Synchronization
import TestSupport
import Testing

@Suite("AVCaptureDevice and AVAudioSession")
struct AVCaptureDeviceTests {
    @Test("recording is authorized without asking, in every form of the question")
    func permission() async {
        #expect(AVCaptureDevice.authorizationStatus(for: .audio) == .authorized)
        #expect(await AVCaptureDevice.requestAccess(for: .audio))
        let answer = Mutex<Bool?>(nil)
        AVCaptureDevice.requestAccess(for: .audio) { granted in answer.withLock { $0 = granted } }
        #expect(await Poll.until(timeout: 2) { answer.withLock { $0 } != nil })
        #expect(answer.withLock { $0 } == true)
        #expect(AVMediaType.audio.rawValue == "soun" && AVMediaType.video != .audio)
    }

    @Test("the audio session keeps what an iOS app sets and never fails")
    func session() throws {
        let session = AVAudioSession.sharedInstance()
        #expect(session === AVAudioSession.sharedInstance())
        try session.setCategory(.record, mode: .measurement, options: .duckOthers)
        #expect(session.category == .record && session.mode == .measurement && session.categoryOptions == .duckOthers)
        try session.setActive(true, options: .notifyOthersOnDeactivation)
        try session.setCategory(.playAndRecord, mode: .default, options: [])
        #expect(session.category == .playAndRecord && session.categoryOptions.isEmpty)
        try session.setActive(false)
    }
}
