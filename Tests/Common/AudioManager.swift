import AVFoundation

/// `AudioManagerProtocol` as an iOS app writes it: `AVAudioEngine`'s input tap in the input's own format, each buffer
/// converted with `AVAudioConverter` to the analyzer's format.
public final class AudioManager: AudioManagerProtocol, @unchecked Sendable {
    private let engine = AVAudioEngine()

    /// A manager of the default input.
    public init() {}

    /// The audio session for recording (a no-op on Linux, as `AVAudioSession` is).
    public func configureAudioSession() throws {
        try AVAudioSession.sharedInstance().setCategory(.record, mode: .measurement, options: .duckOthers)
        try AVAudioSession.sharedInstance().setActive(true, options: .notifyOthersOnDeactivation)
    }

    /// Taps the input, converts each buffer to `targetFormat` and hands it on.
    public func startCapture(
        targetFormat: AVAudioFormat, bufferSize: AVAudioFrameCount, onBuffer: @escaping @Sendable (AVAudioPCMBuffer) -> Void
    ) throws {
        let input = engine.inputNode
        let inputFormat = input.outputFormat(forBus: 0)
        guard let converter = AVAudioConverter(from: inputFormat, to: targetFormat) else { throw SpeechError.noAudioFormat }
        input.installTap(onBus: 0, bufferSize: bufferSize, format: inputFormat) { buffer, _ in
            let ratio = targetFormat.sampleRate / inputFormat.sampleRate
            let capacity = AVAudioFrameCount((Double(buffer.frameLength) * ratio).rounded(.up)) + 16
            guard let converted = AVAudioPCMBuffer(pcmFormat: targetFormat, frameCapacity: capacity) else { return }
            var supplied = false
            var error: NSError?
            let status = converter.convert(to: converted, error: &error) { _, inputStatus in
                if supplied {
                    inputStatus.pointee = .noDataNow
                    return nil
                }
                supplied = true
                inputStatus.pointee = .haveData
                return buffer
            }
            if status != .error, converted.frameLength > 0 { onBuffer(converted) }
        }
    }

    /// Starts the engine.
    public func prepareAndStartEngine() throws {
        engine.prepare()
        try engine.start()
    }

    /// Stops the engine and removes the tap.
    public func stopEngine() {
        engine.stop()
        engine.inputNode.removeTap(onBus: 0)
    }
}

/// `AuthorizeProvider` over `AVCaptureDevice`: Linux asks no permission, so both answer true.
public struct Authorizer: AuthorizeProvider {
    /// An authorizer.
    public init() {}

    /// `AVCaptureDevice.requestAccess(for: .audio)`.
    public func isMicrophonePermissionAuthorized() async -> Bool {
        await AVCaptureDevice.requestAccess(for: .audio)
    }

    /// Speech recognition needs no permission on Linux.
    public func isSpeechPermissionAuthorized() async -> Bool { true }
}
