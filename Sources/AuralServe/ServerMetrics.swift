import Foundation

/// Counters for `GET /metrics`, in Prometheus' text format.
final class ServerMetrics: @unchecked Sendable {  // every field is guarded by `lock`
    private let lock = NSLock()
    private var requests: [String: Int] = [:]  // "route status" → count
    private var audioSeconds = 0.0
    private var computeSeconds = 0.0
    private var liveSessions = 0
    private var liveSessionsRefused = 0

    /// Counts one answered request.
    func countRequest(route: String, status: Int) {
        lock.withLock { requests["\(route) \(status)", default: 0] += 1 }
    }

    /// Adds one transcription's audio length and the wall time it took.
    func addTranscription(audioSeconds audio: Double, wallSeconds: Double) {
        lock.withLock {
            audioSeconds += audio
            computeSeconds += wallSeconds
        }
    }

    /// Counts a live session (a Realtime WebSocket) in while its connection is open.
    func liveSessionOpened() { lock.withLock { liveSessions += 1 } }

    /// Counts a live session out when its connection closes.
    func liveSessionClosed() { lock.withLock { liveSessions = max(0, liveSessions - 1) } }

    /// Counts a live session the machine had no room for.
    func liveSessionRefused() { lock.withLock { liveSessionsRefused += 1 } }

    /// The exposition text, with the admission queue's current state.
    func render(running: Int, waiting: Int) -> String {
        lock.withLock {
            var lines = [
                "# HELP aural_requests_total HTTP requests answered, by route and status.",
                "# TYPE aural_requests_total counter",
            ]
            for (key, count) in requests.sorted(by: { $0.key < $1.key }) {
                let parts = key.split(separator: " ")
                lines.append("aural_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(count)")
            }
            lines += [
                "# HELP aural_audio_seconds_total Seconds of audio transcribed.",
                "# TYPE aural_audio_seconds_total counter",
                "aural_audio_seconds_total \(audioSeconds)",
                "# HELP aural_transcription_seconds_total Wall seconds spent transcribing.",
                "# TYPE aural_transcription_seconds_total counter",
                "aural_transcription_seconds_total \(computeSeconds)",
                "# HELP aural_real_time_factor Wall seconds per audio second over all transcriptions so far.",
                "# TYPE aural_real_time_factor gauge",
                "aural_real_time_factor \(audioSeconds > 0 ? computeSeconds / audioSeconds : 0)",
                "# HELP aural_transcriptions_running Transcriptions running now.",
                "# TYPE aural_transcriptions_running gauge",
                "aural_transcriptions_running \(running)",
                "# HELP aural_queue_depth Transcriptions waiting for a slot.",
                "# TYPE aural_queue_depth gauge",
                "aural_queue_depth \(waiting)",
                "# HELP aural_live_sessions Live sessions (Realtime WebSockets) open now.",
                "# TYPE aural_live_sessions gauge",
                "aural_live_sessions \(liveSessions)",
                "# HELP aural_live_sessions_refused_total Live sessions refused because every core was busy.",
                "# TYPE aural_live_sessions_refused_total counter",
                "aural_live_sessions_refused_total \(liveSessionsRefused)",
            ]
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
