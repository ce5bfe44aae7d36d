import Foundation
import Testing
@testable import Speech

@Suite("Live load: cadence under load and admission")
struct LiveLoadTests {
    @Test("the cadence stays at its base while updates are quick, and lengthens to keep the thread busy at most 70 % of the time")
    func cadenceFollowsUpdateTime() {
        var cadence = AdaptiveCadence(base: 0.5)
        for _ in 0..<5 {
            let full = cadence.noteUpdate(seconds: 0.15)
            #expect(!full)
        }
        #expect(cadence.seconds == 0.5)
        // Updates that take 0.7 s (the cores are shared): the smoothed time approaches 0.7 s, the cadence 1 s.
        for _ in 0..<20 {
            let full = cadence.noteUpdate(seconds: 0.7)
            #expect(!full)
        }
        #expect(abs(cadence.seconds - 1.0) < 0.01, "\(cadence.seconds)")
        // Back to quick updates: back to the base.
        for _ in 0..<30 { _ = cadence.noteUpdate(seconds: 0.1) }
        #expect(cadence.seconds == 0.5)
    }

    @Test("updates too slow for the longest cadence keep it at the maximum and report the machine full")
    func saturation() {
        var cadence = AdaptiveCadence(base: 0.5)
        var full = false
        for _ in 0..<20 { full = cadence.noteUpdate(seconds: 1.5) }
        #expect(full)
        #expect(cadence.seconds == LiveLoad.maximumCadence)
    }

    @Test("with refusal on, a full machine refuses new live sessions with insufficientResources and a recovery suggestion; running ones stay counted")
    func admission() throws {
        let load = LiveLoad()
        try load.admit()
        try load.admit()
        #expect(load.sessions == 2)
        #expect(!load.isFull)
        load.noteFull()
        #expect(load.isFull)
        // Refusal is off by default: a full machine still admits.
        try load.admit()
        load.leave()
        load.refusesWhenFull = true
        do {
            try load.admit()
            Issue.record("a full machine admitted a session")
        } catch let error as SFSpeechError {
            #expect(error.code == .insufficientResources)
            #expect(error.errorDescription?.contains("2 live analyses") == true, "\(error.errorDescription ?? "")")
            #expect(error.recoverySuggestion?.contains("try again") == true)
        }
        #expect(load.sessions == 2)
        load.leave()
        #expect(load.sessions == 1)
        #expect(load.isFull)
        // The last session gone, the machine takes sessions again.
        load.leave()
        #expect(!load.isFull)
        try load.admit()
    }
}
