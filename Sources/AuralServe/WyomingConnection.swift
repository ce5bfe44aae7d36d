import AuralAudio
import AuralWhisper
import Foundation
import Glibc

/// One Wyoming client, on its own thread: reads events, collects the audio between `audio-start` and `audio-stop`,
/// and answers `transcript` (or `error` with a reason; unknown events are dropped, as the protocol asks).
final class WyomingConnection: @unchecked Sendable {  // used by its own thread only
    /// A Wyoming event: its type, its data, and its binary payload.
    struct Event {
        var type: String
        var data: [String: Any]
        var payload: Data
    }

    private let socket: Int32
    private let services: WyomingServer.Services
    private var buffered = Data()
    private var model: String?
    private var language: String?
    private var converter: AudioConverter?
    private var format: (rate: Int, width: Int, channels: Int)?
    private var samples: [Float] = []

    init(socket: Int32, services: WyomingServer.Services) {
        self.socket = socket
        self.services = services
    }

    /// Serves events until the client closes, goes idle, or breaks the framing.
    func run() {
        defer { Glibc.close(socket) }
        while let event = readEvent() {
            handle(event)
        }
    }

    private func handle(_ event: Event) {
        switch event.type {
        case "describe":
            write("info", info())
        case "transcribe":
            model = event.data["name"] as? String
            language = (event.data["language"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        case "audio-start":
            begin(event.data)
        case "audio-chunk":
            append(event)
        case "audio-stop":
            finish()
        default:
            break
        }
    }

    private func begin(_ data: [String: Any]) {
        samples = []
        converter = nil
        format = nil
        let rate = (data["rate"] as? NSNumber)?.intValue ?? 16_000
        let width = (data["width"] as? NSNumber)?.intValue ?? 2
        let channels = (data["channels"] as? NSNumber)?.intValue ?? 1
        guard width == 2, (1...8).contains(channels), (8_000...192_000).contains(rate) else {
            return error("Audio must be 16-bit PCM (width 2), 1 to 8 channels, 8 to 192 kHz; got width \(width), \(channels) channels, \(rate) Hz.", code: "unsupported-audio")
        }
        do {
            converter = try AudioConverter(inputSampleRate: rate, inputChannelCount: channels)
            format = (rate, width, channels)
        } catch {
            self.error("Cannot convert \(rate) Hz, \(channels) channels: \(error.localizedDescription)", code: "unsupported-audio")
        }
    }

    private func append(_ event: Event) {
        if converter == nil, format == nil { begin(event.data) }  // a chunk without audio-start carries its format
        guard let converter, event.payload.count % 2 == 0 else { return }
        let interleaved = event.payload.withUnsafeBytes { raw in
            (0..<(event.payload.count / 2)).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
        }
        samples += converter.convert(interleaved)
        if Double(samples.count) / 16_000 > services.maxAudioSeconds {
            self.converter = nil
            samples = []
            error("The audio is longer than this server's limit of \(Int(services.maxAudioSeconds)) s.", code: "audio-too-long")
        }
    }

    private func finish() {
        guard let converter else { return error("audio-stop without audio: send audio-start and audio-chunk first.", code: "no-audio") }
        samples += converter.flush()
        self.converter = nil
        format = nil
        let audio = samples
        samples = []
        do {
            let (_, transcriber) = try services.models.transcriber(for: model)
            var options = services.decodingOptions
            // Home Assistant sends its pipeline's language; one the model lacks is left to detection.
            options.language = language.flatMap { transcriber.model.languages.contains($0) ? $0 : nil }
            let result = try services.admission.run { try transcriber.transcribe(audio, options: options) }
            let text = result.segments.map(\.text).joined().trimmingCharacters(in: .whitespaces)
            write("transcript", ["text": text, "language": result.info.language])
        } catch let failure as APIError {
            error(failure.message, code: failure.code ?? "transcription-failed")
        } catch {
            self.error("The transcription failed: \(error.localizedDescription)", code: "transcription-failed")
        }
    }

    private func info() -> [String: Any] {
        let attribution: [String: Any] = ["name": "OpenAI Whisper, run by AuralKit", "url": "https://github.com/openai/whisper"]
        let models: [[String: Any]] = services.models.installedModels().map { model in
            [
                "name": model.name, "attribution": attribution, "installed": true, "description": "Whisper \(model.name)",
                "version": services.version, "languages": model.languages,
            ]
        }
        return ["asr": [[
            "name": "aural", "attribution": attribution, "installed": true, "description": "AuralKit's Whisper engine",
            "version": services.version, "models": models, "supports_transcript_streaming": false,
        ] as [String: Any]], "tts": [], "handle": [], "intent": [], "wake": [], "mic": [], "snd": []]
    }

    // MARK: Framing

    private func readEvent() -> Event? {
        guard let line = readLine(limit: 1 << 20),
            var header = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any], let type = header["type"] as? String
        else { return nil }
        var data = header["data"] as? [String: Any] ?? [:]
        if let length = (header["data_length"] as? NSNumber)?.intValue, length > 0 {
            guard length <= 1 << 20, let bytes = read(count: length),
                let extra = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any]
            else { return nil }
            data.merge(extra) { $1 }
        }
        var payload = Data()
        if let length = (header["payload_length"] as? NSNumber)?.intValue, length > 0 {
            guard length <= 16 << 20, let bytes = read(count: length) else { return nil }
            payload = bytes
        }
        header.removeAll()
        return Event(type: type, data: data, payload: payload)
    }

    private func readLine(limit: Int) -> Data? {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<newline]
                buffered.removeSubrange(buffered.startIndex...newline)
                return Data(line)
            }
            guard buffered.count < limit, fill() else { return nil }
        }
    }

    private func read(count: Int) -> Data? {
        while buffered.count < count {
            guard fill() else { return nil }
        }
        let bytes = buffered.prefix(count)
        buffered.removeFirst(count)
        return Data(bytes)
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffered.append(contentsOf: chunk[0..<count])
        return true
    }

    private func write(_ type: String, _ data: [String: Any]) {
        guard let body = try? JSONSerialization.data(withJSONObject: data, options: [.withoutEscapingSlashes]),
            let header = try? JSONSerialization.data(withJSONObject: ["type": type, "version": "1.5.2", "data_length": body.count])
        else { return }
        let message = header + Data([0x0A]) + body
        var sent = 0
        while sent < message.count {
            let count = message.withUnsafeBytes { send(socket, $0.baseAddress! + sent, message.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    private func error(_ text: String, code: String) {
        write("error", ["text": text, "code": code])
    }
}
