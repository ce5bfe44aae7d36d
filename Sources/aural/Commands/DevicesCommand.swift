import AuralAudio
import AuralKit
import Foundation

/// `aural devices`: the sound server's inputs and outputs, with the defaults marked.
enum DevicesCommand {
    static let spec = CommandSpec(
        name: "aural devices",
        abstract: "List audio inputs and outputs (PulseAudio or PipeWire), defaults marked with *",
        options: [
            OptionSpec("json", .flag, help: "Print the list as JSON"),
            OptionSpec("applications", short: "a", .flag, help: "Also list the applications playing now (for capturing one alone)"),
        ]
    )

    static func run(_ arguments: [String]) async -> Int32 {
        await spec.run(arguments, run)
    }

    static func run(_ parsed: ParsedArguments) async -> Int32 {
        let list: AudioDeviceList
        do {
            list = try AudioDevices.list()
        } catch {
            report(error)
            return 1
        }
        if parsed.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(list) else { return 1 }
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(render(list, applications: parsed.flag("applications")), terminator: "")
        }
        return 0
    }

    /// The table: one section per kind of device, one line per device, `*` before the default.
    static func render(_ list: AudioDeviceList, applications: Bool) -> String {
        func section(_ title: String, _ devices: [AudioDevice]) -> [String] {
            guard !devices.isEmpty else { return ["\(title):", "  (none)"] }
            let width = devices.map(\.name.count).max() ?? 0
            return ["\(title):"] + devices.map { device in
                let name = device.name.padding(toLength: width, withPad: " ", startingAt: 0)
                return "\(device.isDefault ? "*" : " ") \(name)  \(device.description)  (\(device.channelCount) ch, \(device.sampleRate) Hz)"
            }
        }
        var lines = section("Inputs", list.inputs) + [""] + section("Outputs", list.outputs) + [""]
            + section("Monitors (what an output plays; capture with the system-audio source)", list.monitors)
        if applications {
            lines += ["", "Applications playing:"]
            if list.applications.isEmpty { lines.append("  (none)") }
            for application in list.applications {
                let process = application.processID.map { ", pid \($0)" } ?? ""
                let media = application.mediaName.map { ": \($0)" } ?? ""
                lines.append("  #\(application.id)  \(application.name)\(media)  (on \(application.outputName)\(process))")
            }
        }
        lines += ["", "* default"]
        return lines.joined(separator: "\n") + "\n"
    }
}
