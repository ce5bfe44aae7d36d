import CPulse
import Foundation

/// What the server says about itself: the default devices.
struct PulseServerRecord: Sendable, Equatable {
    var defaultSinkName: String?
    var defaultSourceName: String?
    var serverName: String
    var serverVersion: String
}

/// One source (an input, or the monitor of an output), copied out of `pa_source_info`.
struct PulseSourceRecord: Sendable, Equatable {
    var index: UInt32
    var name: String
    var description: String
    var channelCount: Int
    var sampleRate: Int
    /// The sink this source monitors, or nil for a real input.
    var monitorOfSink: UInt32?
}

/// One sink (an output), copied out of `pa_sink_info`.
struct PulseSinkRecord: Sendable, Equatable {
    var index: UInt32
    var name: String
    var description: String
    var channelCount: Int
    var sampleRate: Int
    var monitorSourceName: String
}

/// One sink input (an application's playback stream), copied out of `pa_sink_input_info`.
struct PulseSinkInputRecord: Sendable, Equatable {
    var index: UInt32
    var sink: UInt32
    var applicationName: String
    var mediaName: String?
    var processID: Int32?
    /// Paused by the application.
    var isCorked = false
}

/// Collects the entries of a libpulse list query on the mainloop thread.
private final class Collector<Record> {
    let context: PulseContext
    var records: [Record] = []
    var done = false
    init(_ context: PulseContext) { self.context = context }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ userdata: UnsafeMutableRawPointer?) -> Collector { Unmanaged.fromOpaque(userdata!).takeUnretainedValue() }
    func complete() {
        done = true
        context.signal()
    }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

private func property(_ list: OpaquePointer?, _ key: String) -> String? {
    guard let list else { return nil }
    return string(pa_proplist_gets(list, key))
}

extension PulseSourceRecord {
    init(_ info: pa_source_info) {
        self.init(
            index: info.index, name: string(info.name) ?? "", description: string(info.description) ?? "",
            channelCount: Int(info.sample_spec.channels), sampleRate: Int(info.sample_spec.rate),
            monitorOfSink: info.monitor_of_sink == UInt32.max ? nil : info.monitor_of_sink)
    }
}

extension PulseSinkRecord {
    init(_ info: pa_sink_info) {
        self.init(
            index: info.index, name: string(info.name) ?? "", description: string(info.description) ?? "",
            channelCount: Int(info.sample_spec.channels), sampleRate: Int(info.sample_spec.rate),
            monitorSourceName: string(info.monitor_source_name) ?? "")
    }
}

extension PulseSinkInputRecord {
    init(_ info: pa_sink_input_info) {
        let pid = property(info.proplist, "application.process.id").flatMap { Int32($0) }
        self.init(
            index: info.index, sink: info.sink,
            applicationName: property(info.proplist, "application.name") ?? string(info.name) ?? "",
            mediaName: property(info.proplist, "media.name"), processID: pid, isCorked: info.corked != 0)
    }
}

extension PulseServerRecord {
    init(_ info: pa_server_info) {
        func real(_ name: String?) -> String? {
            // PipeWire briefly reports placeholders such as "@DEFAULT_SOURCE@" while a default goes away.
            guard let name, !name.isEmpty, !name.hasPrefix("@") else { return nil }
            return name
        }
        self.init(
            defaultSinkName: real(string(info.default_sink_name)), defaultSourceName: real(string(info.default_source_name)),
            serverName: string(info.server_name) ?? "", serverVersion: string(info.server_version) ?? "")
    }
}

/// Blocking queries: call them with the lock held, from any thread but the mainloop's.
extension PulseContext {
    func serverInfo() throws(AudioDeviceError) -> PulseServerRecord {
        let collector = Collector<PulseServerRecord>(self)
        let operation = pa_context_get_server_info(context, { _, info, userdata in
            let collector = Collector<PulseServerRecord>.from(userdata)
            if let info { collector.records.append(PulseServerRecord(info.pointee)) }
            collector.complete()
        }, collector.userdata)
        try finishQuery(operation)
        guard let record = collector.records.first else { throw .connectionLost(reason: "The server sent no server information.") }
        return record
    }

    func sources() throws(AudioDeviceError) -> [PulseSourceRecord] {
        let collector = Collector<PulseSourceRecord>(self)
        let operation = pa_context_get_source_info_list(context, { _, info, eol, userdata in
            let collector = Collector<PulseSourceRecord>.from(userdata)
            if eol != 0 { collector.complete() } else if let info { collector.records.append(PulseSourceRecord(info.pointee)) }
        }, collector.userdata)
        try finishQuery(operation)
        return collector.records
    }

    func sinks() throws(AudioDeviceError) -> [PulseSinkRecord] {
        let collector = Collector<PulseSinkRecord>(self)
        let operation = pa_context_get_sink_info_list(context, { _, info, eol, userdata in
            let collector = Collector<PulseSinkRecord>.from(userdata)
            if eol != 0 { collector.complete() } else if let info { collector.records.append(PulseSinkRecord(info.pointee)) }
        }, collector.userdata)
        try finishQuery(operation)
        return collector.records
    }

    func sinkInputs() throws(AudioDeviceError) -> [PulseSinkInputRecord] {
        let collector = Collector<PulseSinkInputRecord>(self)
        let operation = pa_context_get_sink_input_info_list(context, { _, info, eol, userdata in
            let collector = Collector<PulseSinkInputRecord>.from(userdata)
            if eol != 0 { collector.complete() } else if let info { collector.records.append(PulseSinkInputRecord(info.pointee)) }
        }, collector.userdata)
        try finishQuery(operation)
        return collector.records
    }

    private func finishQuery(_ operation: OpaquePointer?) throws(AudioDeviceError) {
        guard operation != nil, finish(operation), isConnected else {
            throw .connectionLost(reason: "A query to the sound server failed: \(lastError).")
        }
    }
}
