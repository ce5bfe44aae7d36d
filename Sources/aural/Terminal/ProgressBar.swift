import Foundation

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
struct ProgressBar {
    let label: String
    let total: Double
    let isEnabled: Bool
    /// Shows an amount of `total`, such as seconds as mm:ss (the default) or bytes.
    let format: (Double) -> String
    private var lastDrawn = -1

    init(
        label: String, total: Double, enabled: Bool = isatty(STDERR_FILENO) == 1,
        format: @escaping (Double) -> String = ProgressBar.clock
    ) {
        self.label = label
        self.total = total
        self.isEnabled = enabled
        self.format = format
    }

    /// Redraws the bar at `fraction` (0...1) when it moved by at least one percent.
    mutating func update(_ fraction: Double) {
        guard isEnabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let done = format(total * Double(percent) / 100)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(percent)% \(done)/\(format(total))".utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard isEnabled, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }
}
