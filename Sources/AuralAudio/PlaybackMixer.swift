import CPulse
import Foundation
import Synchronization

/// An output's playback without some processes' share. While none of those processes plays (none has an
/// unpaused playback stream on the output), the output's monitor is delivered as it is. While one plays, each
/// other application's playback stream (sink input) is recorded on its own and the recordings are mixed, in step
/// with the monitor, which then serves only as the clock (so silence is delivered while nothing else plays).
///
/// Used by `PulseSystemAudioSource` for `excludesCurrentProcessAudio`. Applications that start or stop playing
/// during the capture are picked up from sink-input events; streams of applications that stop are dropped, and
/// all of them once no excluded process plays. Everything here runs on the capture's delivery thread, except
/// `refreshNeeded`, set from the mainloop thread.
final class PlaybackMixer: @unchecked Sendable {
    /// How far the mix may trail the clock waiting for a late application stream, in seconds; beyond it the mix
    /// goes on without that stream (a stalled application must not stall the rest), and what the stream delivers
    /// later is mixed late, not dropped. PipeWire (through pipewire-pulse) at times hands an application's stream
    /// over in bursts: 0.7 s behind the output's monitor on an idle machine, 1–3 s with both cores busy.
    static let maximumLag = 2.0

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
    /// Whether an excluded process plays on the output, as the last refresh found: only then are applications
    /// recorded one by one.
    private var isExcluding = false
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

    /// Notes whether an excluded process plays; while one does, opens streams for applications that started
    /// playing on the output since the last call, and notes which ones are paused.
    /// Call on the delivery thread; it blocks for the round trips to the server.
    func refreshIfNeeded() {
        guard refreshNeeded.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard
            let inputs = try? context.withLock({ () throws(AudioDeviceError) in try context.sinkInputs() })
        else { return }
        let onOutput = inputs.filter { $0.sink == sinkIndex }
        isExcluding = onOutput.contains { input in
            !input.isCorked && input.processID.map(excludedProcessIDs.contains) == true
        }
        guard isExcluding else { return }  // the next mix closes the streams
        for input in onOutput {
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
    /// While no excluded process plays, it is what the clock holds, once the applications' streams have given
    /// what they held (then they are closed).
    func mix(clock ring: SampleRing, draining: Bool) -> [Float] {
        guard isExcluding || !members.isEmpty else {
            return ring.read(maximum: ring.capacity, granule: format.channelCount)
        }
        let mixed = Self.mix(
            clock: ring, lanes: members.values.map(\.lane), channels: format.channelCount,
            maximumLagFrames: Int(Self.maximumLag * Double(format.sampleRate)), draining: draining || !isExcluding)
        // Closed: every stream once no excluded process plays, else those that ended and gave all they held.
        for (index, member) in members
        where !isExcluding || (member.lane.hasEnded && member.lane.ring.available < format.channelCount) {
            member.stream.close()
            members[index] = nil
        }
        return mixed
    }

    /// One mix, apart from the server: as many frames as the clock holds and every waited-on lane can give (all
    /// the clock holds once a lane trails it by more than `maximumLagFrames`), summed and clipped to ±1; when
    /// `draining`, everything the clock and the lanes hold. A lane that could not give its share is behind: the mix
    /// no longer waits for it, and what it delivers later is mixed as it comes, so none of its audio is lost (that
    /// application is heard as much later as it stalled past the wait). Once it gives a full share again, it is
    /// waited for again.
    static func mix(clock: SampleRing, lanes: [MixLane], channels: Int, maximumLagFrames: Int, draining: Bool) -> [Float] {
        let clockFrames = clock.available / channels
        var frames = clockFrames
        if draining {
            for lane in lanes { frames = max(frames, lane.ring.available / channels) }
        } else {
            for lane in lanes where lane.isWaitedOn { frames = min(frames, lane.ring.available / channels) }
            if clockFrames - frames > maximumLagFrames { frames = clockFrames }
        }
        guard frames > 0 else { return [] }
        _ = clock.read(maximum: frames * channels)
        var mixed = [Float](repeating: 0, count: frames * channels)
        for lane in lanes {
            let samples = lane.ring.read(maximum: frames * channels, granule: channels)
            for index in samples.indices { mixed[index] += samples[index] }
            lane.isBehind = samples.count < mixed.count && !lane.isCorked && !lane.hasEnded
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
    /// It could not give its share of the last mix, which went on without it: its frames are mixed as they come.
    var isBehind = false

    /// Whether the mix waits for it: it plays, and it is not behind.
    var isWaitedOn: Bool { !isCorked && !hasEnded && !isBehind }

    init(ring: SampleRing, signal: CaptureSignal = CaptureSignal(), isCorked: Bool = false) {
        self.ring = ring
        self.signal = signal
        self.isCorked = isCorked
    }
}
