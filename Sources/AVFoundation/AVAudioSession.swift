import Synchronization

/// iOS's audio session, which apps ported from iOS configure before recording. Linux has no audio session: the sound
/// server mixes every application, so the category, mode and options are kept (and read back) but change nothing, and
/// activating always succeeds.
///
/// ```swift
/// let session = AVAudioSession.sharedInstance()
/// try session.setCategory(.record, mode: .measurement, options: .duckOthers)
/// try session.setActive(true, options: .notifyOthersOnDeactivation)
/// ```
public final class AVAudioSession: NSObject, Sendable {
    /// What the app does with audio.
    public struct Category: RawRepresentable, Hashable, Sendable {
        /// The name, as iOS spells it.
        public let rawValue: String
        /// A category named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Playback that mixes with others' and obeys the silent switch.
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        /// Playback that mixes with nobody's and obeys the silent switch (iOS's default).
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        /// Playback essential to the app.
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        /// Recording.
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        /// Recording and playback, as in a call.
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
    }

    /// A specialization of the category.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        /// The name, as iOS spells it.
        public let rawValue: String
        /// A mode named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No specialization.
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        /// Minimal signal processing of the input, for analysis (speech recognition's usual mode).
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        /// Spoken content, such as audiobooks.
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        /// Two-way voice communication.
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
    }

    /// How the app's audio gets along with other apps'.
    public struct CategoryOptions: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: UInt
        /// Options with the given bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mix with other apps' audio.
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        /// Lower other apps' audio while this one plays.
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        /// Play to the speaker rather than the receiver.
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
    }

    /// How deactivation treats other apps.
    public struct SetActiveOptions: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: UInt
        /// Options with the given bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Tell other apps that they may resume.
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    private struct Settings {
        var category = Category.soloAmbient
        var mode = Mode.default
        var options: CategoryOptions = []
    }

    private let settings = Mutex(Settings())
    private static let shared = AVAudioSession()

    private override init() {
        super.init()
    }

    /// The app's session.
    public static func sharedInstance() -> AVAudioSession {
        shared
    }

    /// The category last set (`.soloAmbient` before).
    public var category: Category { settings.withLock { $0.category } }

    /// The mode last set (`.default` before).
    public var mode: Mode { settings.withLock { $0.mode } }

    /// The options last set.
    public var categoryOptions: CategoryOptions { settings.withLock { $0.options } }

    /// Keeps the category, mode and options; they change nothing on Linux, and this never throws.
    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) throws {
        settings.withLock { ($0.category, $0.mode, $0.options) = (category, mode, options) }
    }

    /// Does nothing on Linux, where there is no session to activate, and never throws.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {}
}
