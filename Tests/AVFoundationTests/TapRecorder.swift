import AVFoundation
import Foundation
import Synchronization

/// Keeps what a tap delivers, from the tap's thread: channel 0 of every buffer, each buffer's length, format and time,
/// and whether any came on the main thread.
final class TapRecorder: Sendable {
    struct Delivery: Sendable {
        let frames: AVAudioFrameCount
        let format: AVAudioFormat
        let sampleTime: AVAudioFramePosition
        let hostTime: UInt64
    }

    private struct State {
        var samples: [Float] = []
        var deliveries: [Delivery] = []
        var onMainThread = false
    }

    private let state = Mutex(State())

    /// The block to install: records each buffer.
    var block: AVAudioNodeTapBlock {
        { [self] buffer, time in
            let samples = TestAudio.samples(buffer)
            let delivery = Delivery(frames: buffer.frameLength, format: buffer.format, sampleTime: time.sampleTime, hostTime: time.hostTime)
            let isMain = Thread.isMainThread
            state.withLock {
                $0.samples += samples
                $0.deliveries.append(delivery)
                $0.onMainThread = $0.onMainThread || isMain
            }
        }
    }

    var samples: [Float] { state.withLock { $0.samples } }
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    var frameCount: Int { state.withLock { $0.samples.count } }
    var sawMainThread: Bool { state.withLock { $0.onMainThread } }

    /// Whether each delivery starts where the previous one ended, in sample time.
    var isContiguous: Bool {
        let deliveries = self.deliveries
        return zip(deliveries, deliveries.dropFirst()).allSatisfy { $1.sampleTime == $0.sampleTime + AVAudioFramePosition($0.frames) }
    }
}

/// A flag a completion handler sets, and when it was first set, on the host clock of `AVAudioTime`.
final class Flag: Sendable {
    private let value = Mutex<UInt64?>(nil)
    func set() { value.withLock { $0 = $0 ?? DispatchTime.now().uptimeNanoseconds } }
    var isSet: Bool { value.withLock { $0 != nil } }
    var hostTime: UInt64? { value.withLock { $0 } }
}
