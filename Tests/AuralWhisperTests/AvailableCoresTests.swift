import Foundation
import Testing

@testable import AuralWhisper

/// The cores the engine sizes its pool by: the affinity mask and the cgroup quota, not every CPU of the machine.
@Suite("available cores")
struct AvailableCoresTests {
    @Test("cpu.max: a quota in cores, or none")
    func quota() {
        #expect(AvailableCores.quota(cpuMax: "max 100000\n") == nil)
        #expect(AvailableCores.quota(cpuMax: "150000 100000\n") == 1.5)
        #expect(AvailableCores.quota(cpuMax: "50000 100000") == 0.5)
        #expect(AvailableCores.quota(cpuMax: "garbage") == nil)
    }

    @Test("the affinity mask is read, and bounds the count")
    func affinity() throws {
        let mask = try #require(AvailableCores.affinityCount())
        #expect(mask >= 1 && mask <= ProcessInfo.processInfo.activeProcessorCount)
        #expect(AvailableCores.count >= 1 && AvailableCores.count <= mask)
    }
}
