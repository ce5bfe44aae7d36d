import CPulse
import Foundation
import Synchronization

/// An output's playback without some processes' share: each other application's playback stream (sink input)
/// is recorded on its own and the recordings are mixed, in step with the output's monitor, which serves only as
/// the clock (so silence is delivered while nothing else plays).
///
/// Used by `PulseSystemAudioSource` for `excludesCurrentProcessAudio`. Applications that start playing during
/// the capture are picked up from sink-input events; streams of applications that stop are dropped. Everything
/// here runs on the capture's delivery thread, except `refreshNeeded`, set from the mainloop thread.
final class PlaybackMixer: @unchecked Sendable {
    /// How far the mix may trail the clock waiting for a late application stream, in seconds; beyond it the
    /// late stream is mixed as silence for the time being (a paused application must not stall the rest), and
    /// what it delivers later lands after that silence, a gap in its playback. PipeWire (through pipewire-pulse)
    /// hands an application's stream over more than 0.1 s behind the output's monitor at times: with 0.1 here, the
    /// exclusion test's kept recording scored NCC 0.73–0.97 there (3 runs of 3), 0.9993–1.0 with 0.5.
    static let maximumLag = 0.5

    private struct Member {
        var stream: PulseRecordStream
        var signal: CaptureSignal
    }

    private let context: PulseContext
    private let format: AudioFormat
    private let sinkIndex: UInt32
    private let monitorName: String
    private let excludedProcessIDs: Set<Int32>
    private let wake: CaptureSignal
    private var members: [UInt32: Member] = [:]
    /// Sink inputs seen and left out (excluded processes), so they are not looked at again.
    private var ignored: Set<UInt32> = []
    private let refreshNeeded = Atomic<Bool>(true)

    /// A mixer for the output `sinkIndex` whose monitor is `monitorName`; `wake` is the capture's signal.
    init(
        context: PulseContext, format: AudioFormat, sinkIndex: UInt32, monitorName: String, excluding processIDs: Set<Int32>,
        wake: CaptureSignal
    ) throws(AudioDeviceError) {
        self.context = context
        self.format = format
        self.sinkIndex = sinkIndex
        self.monitorName = monitorName
        excludedProcessIDs = processIDs
        self.wake = wake
        try context.withLock { () throws(AudioDeviceError) in
            context.onEvent = { [unowned self] facility, _, _ in
                guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue else { return }
                refreshNeeded.store(true, ordering: .releasing)
                self.wake.wake()
            }
            try context.subscribe(PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue)
        }
    }

    /// Opens streams for applications that started playing on the output since the last call.
    /// Call on the delivery thread; it blocks for the round trips to the server.
    func refreshIfNeeded() {
        guard refreshNeeded.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard
            let inputs = try? context.withLock({ () throws(AudioDeviceError) in try context.sinkInputs() })
        else { return }
        for input in inputs where input.sink == sinkIndex && members[input.index] == nil && !ignored.contains(input.index) {
            if let pid = input.processID, excludedProcessIDs.contains(pid) {
                ignored.insert(input.index)
                continue
            }
            let signal = CaptureSignal()
            let ring = SampleRing(minimumCapacity: Int(Double(format.sampleRate * format.channelCount) * PulseCapture.ringDuration))
            // An application that stops between the listing and here is simply not mixed.
            if let stream = try? PulseRecordStream(
                context: context, name: "AuralKit system audio (\(input.applicationName))", format: format, device: monitorName,
                label: input.applicationName, sinkInput: input.index, killMeaning: .finished, ring: ring, signal: signal)
            {
                members[input.index] = Member(stream: stream, signal: signal)
            }
        }
    }

    /// Mixes what the clock `ring` holds with each application's recording; at the end (`draining`), everything.
    func mix(clock ring: SampleRing, draining: Bool) -> [Float] {
        let channels = format.channelCount
        let clockFrames = ring.available / channels
        var frames = clockFrames
        if !draining {
            for member in members.values where member.signal.reason == nil {
                frames = min(frames, member.stream.ring.available / channels)
            }
            if Double(clockFrames - frames) > Self.maximumLag * Double(format.sampleRate) { frames = clockFrames }
        }
        guard frames > 0 else { return [] }
        _ = ring.read(maximum: frames * channels)
        var mixed = [Float](repeating: 0, count: frames * channels)
        for member in members.values {
            let samples = member.stream.ring.read(maximum: frames * channels, granule: channels)
            for index in samples.indices { mixed[index] += samples[index] }
        }
        for index in mixed.indices { mixed[index] = min(max(mixed[index], -1), 1) }
        for (index, member) in members where member.signal.reason != nil && member.stream.ring.available < channels {
            member.stream.close()
            members[index] = nil
        }
        return mixed
    }

    /// Closes every application stream; call before the context closes.
    func close() {
        context.withLock { context.onEvent = nil }
        for member in members.values { member.stream.close() }
        members = [:]
    }
}
