import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("Session options")
struct SessionOptionsTests {
    @Test("AnalyzerConfiguration defaults are AuralKit's")
    func analyzerConfiguration() {
        let configuration = AnalyzerConfiguration.default
        #expect(configuration.priority == .userInitiated)
        #expect(configuration.modelRetention == .lingering)
        #expect(configuration.preparesAnalyzerBeforeStart)
        #expect(AnalyzerConfiguration() == .default)
        #expect(AnalyzerConfiguration(priority: .background) != .default)
    }

    @Test("each model retention maps to ModelManager's")
    func retention() {
        #expect(AnalyzerModelRetention.whileInUse.modelRetention == .whileInUse)
        #expect(AnalyzerModelRetention.lingering.modelRetention == .lingering(.seconds(60)))
        #expect(AnalyzerModelRetention.processLifetime.modelRetention == .processLifetime)
    }

    @Test("SpeechDetector defaults to medium sensitivity without reporting")
    func detector() {
        let detector = SpeechDetector()
        #expect(detector.detectionOptions.sensitivityLevel == .medium)
        #expect(!detector.reportResults)
        #expect(SpeechDetector.SensitivityLevel.allCases.map(\.rawValue) == [0, 1, 2])
        let high = SpeechDetector(detectionOptions: .init(sensitivityLevel: .high), reportResults: true)
        #expect(high.reportResults && high.detectionOptions == .init(sensitivityLevel: .high))
    }

    @Test("log levels include the ones before them and have display names")
    func logLevel() {
        #expect(LogLevel.allCases.map(\.displayName) == ["Off", "Error", "Notice", "Info", "Debug"])
        #expect(LogLevel.info.allows(.error) && LogLevel.info.allows(.info) && !LogLevel.info.allows(.debug))
        #expect(!LogLevel.off.allows(.error) && !LogLevel.debug.allows(.off))
        #expect(InputProviderPreference.automatic != .legacy)
    }
}
