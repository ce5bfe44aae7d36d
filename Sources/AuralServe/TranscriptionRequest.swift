import AuralWhisper
import Foundation

/// What a `POST /v1/audio/transcriptions` or `/v1/audio/translations` form asks for, checked field by field.
struct TranscriptionRequest: Equatable {
    /// The response bodies OpenAI's API offers for Whisper.
    enum ResponseFormat: String, CaseIterable {
        case json, text, srt, vtt
        case verboseJSON = "verbose_json"
    }

    /// The `model` field (nil when left out: the server's default).
    var model: String?
    /// `transcribe`, or `translate` for the translations route.
    var task: WhisperTask
    /// The spoken language's code, or nil to detect it (the translations route takes it too, as Whisper does).
    var language: String?
    /// Text that conditions the first window.
    var prompt: String?
    /// The first sampling temperature (0 is beam search, falling back to higher ones as Whisper does).
    var temperature: Double?
    var responseFormat: ResponseFormat
    /// Whether `verbose_json` lists segments and words.
    var segmentTimestamps: Bool
    var wordTimestamps: Bool
    /// Whether the answer is server-sent events as the file is decoded.
    var stream: Bool

    /// Reads and checks a form's fields.
    /// - Throws: `APIError` 400 naming the field at fault.
    init(form: MultipartForm, task: WhisperTask) throws {
        self.task = task
        model = form.value("model").flatMap { $0.isEmpty ? nil : $0 }
        language = try form.value("language").flatMap(Self.languageCode)
        prompt = form.value("prompt").flatMap { $0.isEmpty ? nil : $0 }
        temperature = try form.value("temperature").map(Self.temperature)
        let format = form.value("response_format") ?? "json"
        guard let responseFormat = ResponseFormat(rawValue: format) else {
            throw APIError.invalidRequest(
                "response_format '\(format)' is not one of \(ResponseFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
                param: "response_format")
        }
        self.responseFormat = responseFormat
        let granularities = (form.fields["timestamp_granularities[]"] ?? []) + (form.fields["timestamp_granularities"] ?? [])
        for granularity in granularities where granularity != "word" && granularity != "segment" {
            throw APIError.invalidRequest(
                "timestamp_granularities[] takes 'word' and 'segment', not '\(granularity)'.", param: "timestamp_granularities[]")
        }
        if !granularities.isEmpty, responseFormat != .verboseJSON {
            throw APIError.invalidRequest(
                "timestamp_granularities[] needs response_format 'verbose_json'.", param: "timestamp_granularities[]")
        }
        segmentTimestamps = granularities.isEmpty || granularities.contains("segment")
        wordTimestamps = granularities.contains("word")
        stream = try form.value("stream").map(Self.boolean) ?? false
    }

    /// The engine's options for this request, on top of `base` (the server's beam size and the like).
    func decodingOptions(base: DecodingOptions) -> DecodingOptions {
        var options = base
        options.task = task
        options.language = language
        options.initialPrompt = prompt
        options.wordTimestamps = wordTimestamps
        if let temperature, temperature > 0 {
            options.temperatures = Array(stride(from: temperature, through: 1.0 + 1e-9, by: 0.2))
        }
        return options
    }

    private static func languageCode(_ value: String) throws -> String? {
        let code = value.trimmingCharacters(in: .whitespaces).lowercased()
        if code.isEmpty { return nil }
        guard code.count >= 2, code.count <= 3, code.allSatisfy({ $0.isLetter && $0.isASCII }) else {
            throw APIError.invalidRequest(
                "language '\(value)' is not an ISO-639-1 code; send a code such as en, de or zh, or leave it out to detect the language.",
                param: "language")
        }
        return code
    }

    private static func temperature(_ value: String) throws -> Double {
        guard let temperature = Double(value), temperature >= 0, temperature <= 1 else {
            throw APIError.invalidRequest("temperature must be a number from 0 to 1, got '\(value)'.", param: "temperature")
        }
        return temperature
    }

    private static func boolean(_ value: String) throws -> Bool {
        switch value.lowercased() {
        case "true", "1": return true
        case "false", "0", "": return false
        default: throw APIError.invalidRequest("stream must be true or false, got '\(value)'.", param: "stream")
        }
    }
}
