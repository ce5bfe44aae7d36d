import AVFoundation
import CoreMedia
import Foundation

/// A module that analyses audio for a `SpeechAnalyzer`, as in Apple's Speech framework: `SpeechTranscriber`,
/// `DictationTranscriber` and `SpeechDetector`.
///
/// Each module publishes its results in its own `results` sequence. On Linux only this framework's modules can be
/// added to an analyzer: the work a module does is internal (`AnalyzerModule`), so a type of an app's own that
/// conforms to `SpeechModule` makes `SpeechAnalyzer` throw `SFSpeechError(.insufficientResources)`.
public protocol SpeechModule: AnyObject, Sendable {
    /// The sequence of the module's results.
    associatedtype Results: Sendable, AsyncSequence where Results.Failure == any Error
    /// One result of the module.
    associatedtype Result: SpeechModuleResult, Sendable where Result == Results.Element

    /// The module's results, as they are made. When the analysis fails, the sequence throws that error.
    var results: Results { get }

    /// The audio formats the module takes as it is configured; empty when its assets are not installed.
    var availableCompatibleAudioFormats: [AVAudioFormat] { get async }
}

/// A module whose assets depend on a locale (the transcribers).
public protocol LocaleDependentSpeechModule: SpeechModule {
    /// Every locale the module supports, installed or not.
    static var supportedLocales: [Locale] { get async }

    /// A supported locale equivalent to `locale` (the same language, preferring the same region), or nil.
    static func supportedLocale(equivalentTo locale: Locale) async -> Locale?

    /// The locales the module's configuration selects.
    var selectedLocales: [Locale] { get }
}

/// A result of a module: it covers `range` of the input's timeline, and the module's results are final up to
/// `resultsFinalizationTime`.
public protocol SpeechModuleResult {
    /// The span of the input's audio the result covers.
    var range: CMTimeRange { get }
    /// The module will not publish another result covering audio before this time.
    var resultsFinalizationTime: CMTime { get }
}

extension SpeechModuleResult {
    /// Whether the result will not change: `resultsFinalizationTime >= range.end`. A result that is not final is
    /// volatile: a later result covering the same audio may replace it.
    public var isFinal: Bool { resultsFinalizationTime >= range.end }
}
