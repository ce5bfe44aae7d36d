import Foundation

/// How much the session logs, from nothing to everything; each level includes the ones before it.
public enum LogLevel: CaseIterable, Sendable, Hashable {
    /// No logging.
    case off
    /// Failures only.
    case error
    /// Failures and notable events (a model download, a device change).
    case notice
    /// Also lifecycle steps (status changes, model loads).
    case info
    /// Everything, including per-window decoding details.
    case debug

    /// The level's name for display: "Off", "Error", "Notice", "Info", "Debug".
    public var displayName: String {
        switch self {
        case .off: "Off"
        case .error: "Error"
        case .notice: "Notice"
        case .info: "Info"
        case .debug: "Debug"
        }
    }

    /// Whether a message of `level` is logged at this level.
    func allows(_ level: LogLevel) -> Bool {
        level != .off && level.rank <= rank
    }

    private var rank: Int {
        switch self {
        case .off: 0
        case .error: 1
        case .notice: 2
        case .info: 3
        case .debug: 4
        }
    }
}
