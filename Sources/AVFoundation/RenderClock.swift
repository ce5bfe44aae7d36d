/// The engine's render thread for player nodes: every 10 ms it has each player render the frames that became due on
/// the host clock since the last time, in real time, as an output device would pull them.
///
/// The host clock drives it, not the output device: each player writes what it rendered to its tap and, when routed to
/// the output, to its playback stream, whose server-side buffer absorbs the difference (see `AVAudioEngine`).
final class RenderClock: Sendable {
    /// Seconds between renders.
    static let interval = 0.01

    private let active = ActiveFlag()
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread; `players` says whom to render at each tick.
    init(players: @escaping @Sendable () -> [PlayerCore]) {
        let (active, wake) = (active, wake)
        let thread = Thread {
            while active.isActive {
                let now = AVAudioTime.now
                for player in players() { player.render(until: now) }
                _ = wake.wait(timeout: .now() + Self.interval)
            }
        }
        thread.name = "AVFoundation render"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Ends the thread after its current tick.
    func stop() {
        active.clear()
        wake.signal()
    }
}
