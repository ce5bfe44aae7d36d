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
    /// late stream is mixed as silence for the time being (a stalled application must not stall the rest). PipeWire
    /// (through pipewire-pulse) at times hands an application's stream over in a burst after a stall: 0.7 s was the
    /// longest seen in the exclusion test (1 run in 12 at 0.5 s here).
    static let maximumLag = 1.0

    private struct Member {
        var stream: PulseRecordStream
        var lane: MixLane
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

    /// Opens streams for applications that started playing on the output since the last call, and notes which
    /// ones are paused.
    /// Call on the delivery thread; it blocks for the round trips to the server.
    func refreshIfNeeded() {
        guard refreshNeeded.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard
            let inputs = try? context.withLock({ () throws(AudioDeviceError) in try context.sinkInputs() })
        else { return }
        for input in inputs where input.sink == sinkIndex {
            // A paused (corked) application plays nothing, and the mix does not wait for it.
            members[input.index]?.lane.isCorked = input.isCorked
            guard members[input.index] == nil, !ignored.contains(input.index) else { continue }
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
                members[input.index] = Member(stream: stream, lane: MixLane(ring: ring, signal: signal, isCorked: input.isCorked))
            }
        }
    }

    /// Mixes what the clock `ring` holds with each application's recording; at the end (`draining`), everything.
    func mix(clock ring: SampleRing, draining: Bool) -> [Float] {
        let mixed = Self.mix(
            clock: ring, lanes: members.values.map(\.lane), channels: format.channelCount,
            maximumLagFrames: Int(Self.maximumLag * Double(format.sampleRate)), draining: draining)
        for (index, member) in members where member.lane.hasEnded && member.lane.ring.available < format.channelCount {
            member.stream.close()
            members[index] = nil
        }
        return mixed
    }

    /// One mix, apart from the server: as many frames as the clock holds and every waited-on lane can give (all
    /// the clock holds once a lane trails it by more than `maximumLagFrames`, or when `draining`), summed and
    /// clipped to ±1. A lane that could not give its share gave silence; what it delivers later for that time is
    /// dropped when it arrives (it shows as more than the lane needs), so its playback stays in time with the rest.
    static func mix(clock: SampleRing, lanes: [MixLane], channels: Int, maximumLagFrames: Int, draining: Bool) -> [Float] {
        let clockFrames = clock.available / channels
        for lane in lanes where lane.owedFrames > 0 {
            let late = min(lane.owedFrames, lane.ring.available / channels - clockFrames)
            if late > 0 {
                _ = lane.ring.read(maximum: late * channels, granule: channels)
                lane.owedFrames -= late
            }
        }
        var frames = clockFrames
        if !draining {
            for lane in lanes where lane.isWaitedOn { frames = min(frames, lane.ring.available / channels) }
            if clockFrames - frames > maximumLagFrames { frames = clockFrames }
        }
        guard frames > 0 else { return [] }
        _ = clock.read(maximum: frames * channels)
        var mixed = [Float](repeating: 0, count: frames * channels)
        for lane in lanes {
            let samples = lane.ring.read(maximum: frames * channels, granule: channels)
            for index in samples.indices { mixed[index] += samples[index] }
            if lane.isWaitedOn { lane.owedFrames += frames - samples.count / channels }
        }
        for index in mixed.indices { mixed[index] = min(max(mixed[index], -1), 1) }
        return mixed
    }

    /// Closes every application stream; call before the context closes.
    func close() {
        context.withLock { context.onEvent = nil }
        for member in members.values { member.stream.close() }
        members = [:]
    }
}

/// One application's recording as the mix sees it: its samples, whether the mix waits for them, and the frames
/// it was mixed as silence for while late.
final class MixLane {
    let ring: SampleRing
    /// Its stream's signal, which says when the stream ended.
    let signal: CaptureSignal
    /// Paused by the application: plays nothing, so the mix does not wait for it.
    var isCorked: Bool
    /// Its stream ended: what is left is mixed, nothing more is waited for.
    var hasEnded: Bool { signal.reason != nil }
    /// Frames of the mix it gave silence for while late; that many of its next frames, when they come ahead of
    /// the clock, belong to that past and are dropped.
    var owedFrames = 0

    var isWaitedOn: Bool { !isCorked && !hasEnded }

    init(ring: SampleRing, signal: CaptureSignal = CaptureSignal(), isCorked: Bool = false) {
        self.ring = ring
        self.signal = signal
        self.isCorked = isCorked
    }
}
