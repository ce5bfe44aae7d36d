import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("AnalysisContext")
struct AnalysisContextTests {
    typealias Tag = AnalysisContext.ContextualStringsTag

    @Test("contextual strings are stored per tag; .general is named general")
    func storage() {
        let context = AnalysisContext()
        #expect(context.contextualStrings.isEmpty)
        context.contextualStrings[.general] = ["AuralKit"]
        context.contextualStrings[Tag("names")] = ["Nagg"]
        #expect(context.contextualStrings == [.general: ["AuralKit"], Tag(rawValue: "names"): ["Nagg"]])
        #expect(Tag.general.rawValue == "general")
    }

    @Test("the prompt joins strings with commas: general first, other tags by name, trimmed, without repeats")
    func prompt() {
        #expect(AnalysisContext.initialPrompt(from: [:]) == nil)
        #expect(AnalysisContext.initialPrompt(from: [.general: ["", "  "]]) == nil)
        let strings: [Tag: [String]] = [
            Tag("zeta"): ["Zed"], .general: [" AuralKit ", "PipeWire", "AuralKit"],
            Tag("alpha"): ["Debian", "PipeWire"],
        ]
        #expect(AnalysisContext.initialPrompt(from: strings) == "AuralKit, PipeWire, Debian, Zed.")
    }

    @Test("the prompt stays within 200 characters; the first string that does not fit ends it")
    func limit() throws {
        let terms = (0..<40).map { "Term\($0)" + String(repeating: "x", count: 5) }
        let prompt = try #require(AnalysisContext.initialPrompt(from: [.general: terms]))
        #expect(prompt.count <= AnalysisContext.maximumPromptLength)
        #expect(prompt.count > AnalysisContext.maximumPromptLength - 15)
        #expect(prompt.hasPrefix("Term0xxxxx, Term1xxxxx") && prompt.hasSuffix("."))
        let tooLong = String(repeating: "a", count: 250)
        #expect(AnalysisContext.initialPrompt(from: [.general: [tooLong, "short"]]) == nil)
    }
}
