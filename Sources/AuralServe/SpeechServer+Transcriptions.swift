import AuralAudio
import AuralWhisper
import Foundation
import Speech

extension SpeechServer {
    /// `POST /v1/audio/transcriptions` and `/v1/audio/translations`.
    func transcribe(_ exchange: HTTPExchange, task: WhisperTask) {
        do {
            let form = try MultipartForm.read(
                exchange, fileField: "file", directory: configuration.uploadDirectory, limit: configuration.maxUploadBytes)
            defer { form.removeUpload() }
            let job = try prepare(form, task: task)
            if job.request.stream {
                try stream(job, to: exchange)
            } else {
                let response = try run(job, onSegment: { _ in true })
                let (contentType, body) = response.body(for: job.request)
                let history = recordInHistory(exchange, job: job, response: response)  // only when the request opts in
                exchange.respond(status: 200, contentType: contentType, body: body, headers: history)
            }
        } catch let error as APIError {
            exchange.respond(error)
        } catch {
            exchange.respond(APIError.internalError("The transcription failed: \(error.localizedDescription)"))
        }
    }

    /// A checked request with its model and open file.
    struct Job {
        var request: TranscriptionRequest
        var transcriber: Transcriber
        var upload: URL
        /// The name the client gave the file.
        var filename: String
        var duration: Double
    }

    /// Checks everything a request can get wrong before any work: fields, model, language, the audio itself.
    private func prepare(_ form: MultipartForm, task: WhisperTask) throws -> Job {
        guard let upload = form.upload else {
            throw APIError.invalidRequest("No audio: send the file in a multipart field named 'file'.", param: "file")
        }
        guard upload.size > 0 else {
            throw APIError.invalidRequest("The audio file '\(upload.filename)' is empty.", param: "file")
        }
        let request = try TranscriptionRequest(form: form, task: task)
        let (_, transcriber) = try models.transcriber(for: request.model)
        if let language = request.language, !transcriber.model.languages.contains(language) {
            throw APIError.invalidRequest(
                transcriber.model.isMultilingual
                    ? "language '\(language)' is not one Whisper knows; send an ISO-639-1 code such as en, de or zh, or leave it out to detect it."
                    : "The model '\(models.resolve(request.model))' is English-only and cannot take language '\(language)'; choose a multilingual model such as base.",
                param: "language")
        }
        if task == .translate, !transcriber.model.isMultilingual {
            throw APIError.invalidRequest(
                "The model '\(models.resolve(request.model))' is English-only and cannot translate; choose a multilingual model such as base.",
                param: "model")
        }
        let duration: Double
        do {
            duration = try AudioFileReader(url: upload.url).duration ?? 0
        } catch {
            let reason = (error as? LocalizedError)?.failureReason ?? error.localizedDescription
            throw APIError.invalidRequest(
                "The audio file '\(upload.filename)' could not be decoded or its format is not supported (\(reason)). Send a file FFmpeg reads: WAV, FLAC, MP3, Ogg, M4A, WebM, MP4, …",
                param: "file")
        }
        guard duration <= configuration.maxAudioSeconds else {
            throw APIError.invalidRequest(
                "The audio is \(Int(duration)) s long, over this server's limit of \(Int(configuration.maxAudioSeconds)) s. Split it, or start the server with a higher --max-audio-minutes.",
                param: "file")
        }
        return Job(request: request, transcriber: transcriber, upload: upload.url, filename: upload.filename, duration: duration)
    }

    /// Transcribes in a slot, on a thread with the engine's stack size; `onSegment` returns false to stop.
    private func run(_ job: Job, onSegment: @escaping (Segment) -> Bool) throws -> TranscriptionResponse {
        try admission.run {
            let started = Date()
            let options = job.request.decodingOptions(base: configuration.decodingOptions)
            let result = try OwnStackThread.run {
                var keepGoing = true
                do {
                    return try job.transcriber.transcribe(
                        reading: { try AudioFileSamples(url: job.upload) }, options: options, isCancelled: { !keepGoing },
                        onSegment: { keepGoing = onSegment($0) && keepGoing })
                } catch let error as CancellationError {
                    throw error
                } catch {
                    throw Self.apiError(for: error)
                }
            }
            metrics.addTranscription(audioSeconds: result.info.duration, wallSeconds: Date().timeIntervalSince(started))
            return TranscriptionResponse(segments: result.segments, info: result.info, task: job.request.task)
        }
    }

    /// An engine error as the client should see it: bad audio or options are the request's fault (400).
    static func apiError(for error: Error) -> APIError {
        let reason = (error as? LocalizedError).flatMap { [$0.errorDescription, $0.failureReason].compactMap { $0 }.joined(separator: " ") }
            ?? "\(error)"
        switch error {
        case is AudioSourceError:
            return .invalidRequest(
                "The audio file could not be decoded: \(reason) Send a complete file in a format FFmpeg reads.", param: "file")
        case is TranscriptionError:
            return .invalidRequest("The audio cannot be transcribed as asked: \(reason)")
        default:
            return .internalError("The transcription failed: \(reason)")
        }
    }

    /// `stream=true`: `transcript.text.delta` for each segment as it is decoded, then `transcript.text.done`, as
    /// server-sent events. A client that goes away stops the transcription at the next decoded token.
    private func stream(_ job: Job, to exchange: HTTPExchange) throws {
        var started = false
        func send(_ event: some Encodable) -> Bool {
            if !started {
                started = exchange.startResponse(
                    status: 200,
                    headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Transfer-Encoding", "chunked")])
            }
            return exchange.writeChunk(Data(("data: ".utf8)) + TranscriptionResponse.encode(event) + Data("\n\n".utf8))
        }
        var first = true
        do {
            let response = try run(job) { segment in
                let text = first ? String(segment.text.drop(while: { $0 == " " })) : segment.text
                first = false
                return send(TextDelta(delta: text))
            }
            _ = recordInHistory(exchange, job: job, response: response)  // only when the request opts in
            _ = send(TextDone(text: response.text, usage: response.usage))
            _ = exchange.writeChunk(Data())
        } catch let error as APIError where !started {
            throw error
        } catch is CancellationError {
            return  // the client left
        } catch let error as APIError {
            _ = send(error.body)
            _ = exchange.writeChunk(Data())
        }
    }

    struct TextDelta: Encodable {
        var type = "transcript.text.delta"
        var delta: String
    }

    struct TextDone: Encodable {
        var type = "transcript.text.done"
        var text: String
        var usage: TranscriptionResponse.Usage
    }
}

/// Runs a closure on a new thread with an 8 MB stack (the engine's need, whatever the caller's thread has) and
/// waits for it.
enum OwnStackThread {
    static func run<Value>(_ body: @escaping () throws -> Value) throws -> Value {
        let box = Box(body)
        let thread = Thread { box.run() }
        thread.stackSize = 8 << 20
        thread.start()
        box.done.wait()
        return try box.result!.get()
    }

    /// The closure and its result: the thread writes the result before it signals `done`, the caller reads it after.
    private final class Box<Value>: @unchecked Sendable {
        let body: () throws -> Value
        let done = DispatchSemaphore(value: 0)
        var result: Result<Value, Error>?
        init(_ body: @escaping () throws -> Value) { self.body = body }
        func run() {
            result = Result { try body() }
            done.signal()
        }
    }
}
