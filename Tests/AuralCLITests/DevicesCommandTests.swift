import Foundation
import Testing

@Suite("aural devices")
struct DevicesCommandTests {
    /// The daemon `scripts/with-pulse` starts (as `make test` does); its devices are known.
    static func requirePrivateDaemon() throws {
        let environment = ProcessInfo.processInfo.environment
        try #require(
            environment["AURALKIT_TEST_PULSE"] == "1" && environment["PULSE_SERVER"] != nil,
            "run the tests through scripts/with-pulse (make test does), which starts a private PulseAudio daemon")
    }

    /// The lines of one section of the table, without its title.
    static func section(_ title: String, in output: String) -> [String] {
        let lines = output.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(title) }) else { return [] }
        return Array(lines[(start + 1)...].prefix { !$0.isEmpty })
    }

    @Test("lists the virtual devices with the defaults marked")
    func listsDevices() throws {
        try Self.requirePrivateDaemon()
        let result = try CLI.run(["devices"])
        #expect(result.status == 0, "\(result.stderr)")
        let inputs = Self.section("Inputs:", in: result.stdout)
        let outputs = Self.section("Outputs:", in: result.stdout)
        let monitors = Self.section("Monitors", in: result.stdout)
        #expect(inputs.contains { $0.contains("virt_mic_clocked") && $0.contains("VirtualMicrophone") && $0.contains("1 ch, 16000 Hz") })
        #expect(outputs.contains { $0.hasPrefix("* virt_speaker ") && $0.contains("VirtualSpeaker") })
        #expect(outputs.contains { $0.hasPrefix("  mic_feed ") })
        #expect(outputs.filter { $0.hasPrefix("*") }.count == 1)
        #expect(monitors.contains { $0.contains("virt_speaker.monitor") })
        // One default input, which other tests may switch to a monitor for a moment.
        #expect((inputs + monitors).filter { $0.hasPrefix("*") }.count == 1)
        #expect(!inputs.contains { $0.contains(".monitor") })
        #expect(result.stdout.hasSuffix("* default\n"))
    }

    @Test("--json gives the same list to programs")
    func json() throws {
        try Self.requirePrivateDaemon()
        let result = try CLI.run(["devices", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let outputs = try #require(json["outputs"] as? [[String: Any]])
        let speaker = try #require(outputs.first { $0["name"] as? String == "virt_speaker" })
        #expect(speaker["isDefault"] as? Bool == true)
        #expect(speaker["sampleRate"] as? Int == 16_000)
        let inputs = try #require(json["inputs"] as? [[String: Any]])
        #expect(inputs.contains { $0["name"] as? String == "virt_mic_clocked" && $0["kind"] as? String == "input" })
        #expect(json["monitors"] is [[String: Any]] && json["applications"] is [[String: Any]])
    }

    @Test("no sound server: a clear error with a hint, exit status 1")
    func noServer() throws {
        let result = try CLI.run(["devices"], environment: ["PULSE_SERVER": "unix:/nonexistent/pulse/native"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("error: No sound server is running."))
        #expect(result.stderr.contains("unix:/nonexistent/pulse/native"))
        #expect(result.stderr.contains("hint: Start the sound server"))
        #expect(result.stderr.contains("PULSE_SERVER"))
    }

    @Test("--help shows the options")
    func help() throws {
        let result = try CLI.run(["devices", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout == (try CLI.snapshot("devices-help.txt")))
    }
}
