import Foundation

extension SpeechAnalyzer {
    /// How an analyzer schedules its work and keeps its models, as in Apple's Speech framework.
    public struct Options: Sendable, Equatable {
        /// The priority of the analysis' tasks (the decoding itself runs on threads of its own).
        public let priority: TaskPriority
        /// How long models stay loaded after the analysis.
        public let modelRetention: ModelRetention

        /// Options of this priority and retention.
        public init(priority: TaskPriority, modelRetention: ModelRetention) {
            self.priority = priority
            self.modelRetention = modelRetention
        }

        /// How long an analyzer's models stay loaded once it no longer uses them.
        public enum ModelRetention: CaseIterable, Sendable, Equatable, Hashable {
            /// Unloaded when the analysis ends.
            case whileInUse
            /// Kept for `lingerDuration` (60 s), so that another analyzer started soon after loads nothing.
            case lingering
            /// Kept until the process exits.
            case processLifetime

            /// How long `.lingering` keeps an unused model.
            package static let lingerDuration: Duration = .seconds(60)

            /// The model manager's retention that implements this one.
            package var modelRetention: AuralKitModelRetention {
                switch self {
                case .whileInUse: .whileInUse
                case .lingering: .lingering(Self.lingerDuration)
                case .processLifetime: .processLifetime
                }
            }
        }
    }
}

/// The model manager's retention (`ModelRetention` at the top level of this module), named apart from
/// `SpeechAnalyzer.Options.ModelRetention`.
package typealias AuralKitModelRetention = ModelRetention
