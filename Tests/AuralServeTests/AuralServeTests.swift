import AuralWhisper
import Foundation
import Testing

@testable import AuralServe

/// The parts of `aural serve` that need no socket or model: reading a form's fields, and the admission queue.
/// The server itself is tested end to end through OpenAI's Python client (scripts/serve-check).
@Suite("aural serve's request checks and queue")
struct AuralServeTests {
    private func form(_ fields: [(String, String)]) -> MultipartForm {
        var form = MultipartForm()
        for (name, value) in fields { form.fields[name, default: []].append(value) }
        return form
    }

    private func rejection(_ fields: [(String, String)]) -> APIError? {
        do {
            _ = try TranscriptionRequest(form: form(fields), task: .transcribe)
            return nil
        } catch {
            return error as? APIError
        }
    }

    @Test("OpenAI's defaults: json, segments, no words, no stream, language detected")
    func defaults() throws {
        let request = try TranscriptionRequest(form: form([("model", "whisper-1")]), task: .transcribe)
        #expect(request.responseFormat == .json)
        #expect(request.segmentTimestamps && !request.wordTimestamps && !request.stream)
        #expect(request.language == nil && request.temperature == nil && request.prompt == nil)
        #expect(request.model == "whisper-1")
    }

    @Test("fields reach the engine's options")
    func fieldsReachTheOptions() throws {
        let request = try TranscriptionRequest(
            form: form([
                ("language", "DE"), ("prompt", "Kafka"), ("temperature", "0.4"), ("response_format", "verbose_json"),
                ("timestamp_granularities[]", "word"), ("stream", "true"),
            ]), task: .translate)
        let options = request.decodingOptions(base: DecodingOptions(beamSize: 2))
        #expect(options.language == "de" && options.task == .translate && options.initialPrompt == "Kafka")
        #expect(options.wordTimestamps && options.beamSize == 2)
        #expect(options.temperatures.count == 4 && abs(options.temperatures[0] - 0.4) < 1e-9)  // 0.4, 0.6, 0.8, 1.0
        #expect(request.stream && request.wordTimestamps && !request.segmentTimestamps)
    }

    @Test("each bad field is a 400 that names it")
    func badFields() {
        let cases: [([(String, String)], String)] = [
            ([("response_format", "docx")], "response_format"),
            ([("temperature", "1.5")], "temperature"),
            ([("temperature", "warm")], "temperature"),
            ([("timestamp_granularities[]", "word")], "timestamp_granularities[]"),  // needs verbose_json
            ([("response_format", "verbose_json"), ("timestamp_granularities[]", "letter")], "timestamp_granularities[]"),
            ([("language", "english please")], "language"),
            ([("stream", "maybe")], "stream"),
        ]
        for (fields, param) in cases {
            let error = rejection(fields)
            #expect(error?.status == 400 && error?.param == param, "\(fields)")
        }
    }

    @Test("the error body is OpenAI's, with null for what is missing")
    func errorBody() throws {
        let json = try JSONEncoder().encode(APIError.invalidRequest("No audio.").body)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: [String: Any]])
        #expect(Set(object["error"]!.keys) == ["message", "type", "param", "code"])
        #expect(object["error"]!["param"] is NSNull)
    }

    @Test("a full queue refuses at once; a closed one refuses with 503 and wakes its waiters")
    func admission() async throws {
        let control = AdmissionControl(slots: 1, queueLimit: 1)
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Thread { _ = try? control.run { running.signal(); release.wait() } }
        first.start()
        running.wait()
        let waiterResult = ResultBox()
        let waiter = Thread { waiterResult.set(Result { try control.run { 1 } }) }
        waiter.start()
        while control.load.waiting == 0 { usleep(1000) }
        #expect(throws: APIError.busy(retryAfterSeconds: 5)) { try control.run { 2 } }
        control.close()
        waiterResult.wait()
        #expect(waiterResult.error == APIError.shuttingDown)
        release.signal()
        while control.load.running > 0 { usleep(1000) }
        #expect(throws: APIError.shuttingDown) { try control.run { 3 } }
    }

    private final class ResultBox: @unchecked Sendable {  // set once by one thread, read after `wait`
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<Int, Error>?
        func set(_ value: Result<Int, Error>) {
            result = value
            done.signal()
        }
        func wait() { done.wait() }
        var error: APIError? {
            if case .failure(let error) = result { return error as? APIError }
            return nil
        }
    }
}
