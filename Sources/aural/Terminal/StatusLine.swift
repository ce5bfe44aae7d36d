import AuralKit
import Foundation

/// The bottom line of `aural listen`: state, model, input, level meter, voice activation and latency.
///
/// `"● listening │ tiny.en │ VirtualMicrophone │ ▮▮▮▮▯▯▯▯ │ vad off │ lag 1.4 s │ space pause · q stop"`
struct StatusLine {
    /// The session's state.
    var status: SpeechSession.Status = .preparing
    /// The model's name (or folder).
    var model: String
    /// What is being captured: an input's name, "system audio", an application.
    var input: String
    /// The root mean square of the latest audio, 0…1.
    var level: Double = 0
    /// The voice activation setting, as shown ("vad off", "vad medium").
    var voiceActivation: String
    /// Seconds between the end of the audio captured and the end of the newest result, when one has come.
    var latency: Double?

    /// The line as shown (the view cuts it to the terminal's width).
    var text: String {
        var parts = [state, model, input, Self.meter(level), voiceActivation]
        if let latency { parts.append(String(format: "lag %.1f s", max(latency, 0))) }
        switch status {
        case .transcribing: parts.append("space pause · q stop")
        case .paused: parts.append("space resume · q stop")
        default: break
        }
        return " " + parts.joined(separator: " │ ") + " "
    }

    private var state: String {
        switch status {
        case .idle: return "■ stopped"
        case .preparing: return "… loading"
        case .transcribing: return "● listening"
        case .paused: return "‖ paused"
        case .stopping: return "■ finishing"
        }
    }

    /// A bar of `cells` cells for a level (RMS, 0…1) on a decibel scale from -60 dBFS (empty) to 0 dBFS (full).
    static func meter(_ level: Double, cells: Int = 8) -> String {
        let decibels = level > 0 ? 20 * log10(level) : -120
        let filled = min(max(Int(((decibels + 60) / 60 * Double(cells)).rounded()), 0), cells)
        return String(repeating: "▮", count: filled) + String(repeating: "▯", count: cells - filled)
    }
}
