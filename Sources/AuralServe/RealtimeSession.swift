import AVFoundation
import AuralHistory
import AuralWhisper
import Foundation
import Speech

/// One live transcription over a WebSocket, in OpenAI's Realtime transcription protocol: the client appends base64
/// PCM16 (`input_audio_buffer.append`), the session feeds a `SpeechAnalyzer` with a `SpeechTranscriber`, and each
/// phrase comes back as an item: `input_audio_buffer.speech_started` when its first words are heard, then, once it is
/// final, `speech_stopped`, `committed`, one `conversation.item.input_audio_transcription.delta` and `…completed`.
///
/// Two opt-ins beyond OpenAI's protocol, from the WebSocket URL's query (`ClientOptIns`): with `volatile=true` the
/// phrase's volatile text also goes out, as `aural.transcription.volatile` (`item_id`, `text`: the whole volatile
/// text of the open item, replacing the one before), and with `history=true` the session is recorded in the
/// server's history (`aural.history.session` with its `session_id` once the first audio arrives; each final
/// result as it comes). Clients that ask for neither get exactly OpenAI's events.
///
/// Messages arrive on the connection's civetweb thread; results leave from the analyzer's task. Writes stop once the
/// connection closes (`close()`), which also ends the analysis.
final class RealtimeSession: WebSocketRoute.Peer, @unchecked Sendable {  // mutable state is guarded by `lock`
    /// What the session needs from the server.
    struct Settings {
        var models: ModelRegistry
        var computeType: ComputeType
        var modelManager: ModelManager
        /// Whether volatile text is sent (`volatile=true`).
        var volatileText = false
        /// Where the session is recorded, or nil when it is not (`history=true` on a server that keeps a history).
        var history: TranscriptStore?
        /// Where the session counts itself in and out.
        var metrics: ServerMetrics?
    }

    private let settings: Settings
    private let send: @Sendable (Data) -> Bool
    private let lock = NSLock()
    private var isClosed = false
    private var sampleRate = 24_000.0
    private var language = "en"
    private var modelName: String?
    private var prompt: String?
    private var input: AsyncStream<AnalyzerInput>.Continuation?
    /// The client's audio format, fixed when the analysis starts.
    private var inputFormat: AVAudioFormat?
    private var analyzer: SpeechAnalyzer?
    private var results: Task<Void, Never>?
    private var samplesSinceCommit = 0
    private var counter = 0
    private var itemCounter = 0
    private var item: String?
    private var previousItem: String?
    /// Samples the client has sent, for the history's duration.
    private var samplesReceived = 0
    private var recording: HistoryRecording?

    /// - Parameter send: writes one text message; false once the client is gone.
    init(settings: Settings, send: @escaping @Sendable (Data) -> Bool) {
        self.settings = settings
        self.send = send
    }

    /// The connection is open: announces the session.
    func open() {
        settings.metrics?.liveSessionOpened()
        emit(["type": "session.created", "session": sessionDescription(kind: "transcription")])
    }

    /// One text message from the client.
    func receive(_ message: Data) {
        guard let event = (try? JSONSerialization.jsonObject(with: message)) as? [String: Any], let type = event["type"] as? String else {
            return error("The message is not a JSON object with a 'type'. Send Realtime client events such as input_audio_buffer.append.", code: "invalid_json")
        }
        switch type {
        case "session.update", "transcription_session.update":
            update(event["session"] as? [String: Any] ?? [:], reply: type.replacingOccurrences(of: ".update", with: ".updated"))
        case "input_audio_buffer.append":
            append(event["audio"])
        case "input_audio_buffer.commit":
            commit()
        case "input_audio_buffer.clear":
            lock.withLock { samplesSinceCommit = 0 }
            emit(["type": "input_audio_buffer.cleared"])
        default:
            error("Unknown client event type '\(type)'. This server takes session.update, transcription_session.update, input_audio_buffer.append, input_audio_buffer.commit and input_audio_buffer.clear.", code: "invalid_event_type")
        }
    }

    /// The connection closed: no more writes, and the analysis ends.
    func close() {
        let (input, analyzer, recording, seconds) = lock.withLock {
            () -> (AsyncStream<AnalyzerInput>.Continuation?, SpeechAnalyzer?, HistoryRecording?, Double) in
            isClosed = true
            return (self.input, self.analyzer, self.recording, Double(samplesReceived) / sampleRate)
        }
        settings.metrics?.liveSessionClosed()
        recording?.end(audioDuration: seconds)
        input?.finish()
        if let analyzer { Task { await analyzer.cancelAndFinishNow() } }
    }

    // MARK: Client events

    private func update(_ session: [String: Any], reply: String) {
        let audio = (session["audio"] as? [String: Any])?["input"] as? [String: Any]
        let transcription = audio?["transcription"] as? [String: Any] ?? session["input_audio_transcription"] as? [String: Any]
        let format = audio?["format"] as? [String: Any]
        let rate = (format?["rate"] as? NSNumber)?.doubleValue
        let formatName = format?["type"] as? String ?? session["input_audio_format"] as? String
        if let formatName, !["pcm16", "audio/pcm"].contains(formatName) {
            return error("Audio format '\(formatName)' is not supported; send pcm16 (audio/pcm), mono, little-endian.", code: "invalid_value", param: "session.audio.input.format")
        }
        if let rate, !(8_000...48_000).contains(rate) {
            return error("Sample rate \(Int(rate)) Hz is not supported; send 8,000 to 48,000 Hz (24,000 is OpenAI's).", code: "invalid_value", param: "session.audio.input.format.rate")
        }
        let started = lock.withLock { analyzer != nil }
        if started, transcription != nil || rate != nil {
            return error("The session has started; send session.update with the model, language and format before the first audio.", code: "session_already_started")
        }
        lock.withLock {
            if let rate { sampleRate = rate }
            if let language = transcription?["language"] as? String, !language.isEmpty { self.language = language }
            if let model = transcription?["model"] as? String { modelName = model }
            if let prompt = transcription?["prompt"] as? String { self.prompt = prompt }
        }
        emit(["type": reply, "session": sessionDescription(kind: "transcription")])
    }

    private func append(_ audio: Any?) {
        guard let base64 = audio as? String, let bytes = Data(base64Encoded: base64), bytes.count % 2 == 0 else {
            return error("'audio' must be base64 of 16-bit little-endian mono PCM (an even number of bytes).", code: "invalid_value", param: "audio")
        }
        guard !bytes.isEmpty else { return }
        do {
            if let started = try startIfNeeded() { beginHistory(started) }
        } catch {
            return self.error(Self.describe(error), code: "session_failed")
        }
        let (format, input) = lock.withLock { () -> (AVAudioFormat?, AsyncStream<AnalyzerInput>.Continuation?) in
            samplesSinceCommit += bytes.count / 2
            samplesReceived += bytes.count / 2
            return (inputFormat, self.input)
        }
        // The client's PCM16 as it is: the analyzer converts it to what its modules take.
        guard let format, let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(bytes.count / 2))
        else { return }
        buffer.frameLength = AVAudioFrameCount(bytes.count / 2)
        bytes.withUnsafeBytes { raw in
            let samples = buffer.int16ChannelData![0]
            for index in 0..<(bytes.count / 2) { samples[index] = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)) }
        }
        input?.yield(AnalyzerInput(buffer: buffer))
    }

    /// Ends the current phrase now: its final result becomes a completed item. With no phrase open (the audio since
    /// the last phrase was silence), the commit still gets its item, with an empty transcript, as OpenAI's does.
    private func commit() {
        let (pending, analyzer, open) = lock.withLock { (samplesSinceCommit, self.analyzer, item != nil) }
        guard pending > 0, let analyzer else {
            return error("The input audio buffer is empty: append audio before committing.", code: "input_audio_buffer_commit_empty")
        }
        lock.withLock { samplesSinceCommit = 0 }
        if !open {
            let (id, previous) = lock.withLock { () -> (String, String?) in
                itemCounter += 1
                defer { previousItem = "item_\(itemCounter)" }
                return ("item_\(itemCounter)", previousItem)
            }
            emit(["type": "input_audio_buffer.committed", "item_id": id, "previous_item_id": previous ?? NSNull()])
            emit(["type": "conversation.item.input_audio_transcription.completed", "item_id": id, "content_index": 0, "transcript": ""])
        }
        Task { try? await analyzer.finalize(through: nil) }
    }

    // MARK: Analysis

    /// Starts the analysis on the first audio; returns what the history records of it then, nil when it had started.
    private func startIfNeeded() throws -> TranscriptStore.SessionInfo? {
        lock.lock()
        defer { lock.unlock() }
        guard analyzer == nil, !isClosed else { return nil }
        let name = modelName.map { settings.models.resolve(ModelRegistry.defaultAliases.contains($0) || $0.hasPrefix("gpt-") ? nil : $0) }
        if let name { _ = try settings.modelManager.folder(for: name) }
        let transcriber = SpeechTranscriber(
            locale: Locale(identifier: language), transcriptionOptions: [], reportingOptions: [.volatileResults],
            attributeOptions: [.audioTimeRange],
            engine: TranscriberEngine(modelName: name, computeType: settings.computeType, modelManager: settings.modelManager))
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let (stream, input) = AsyncStream<AnalyzerInput>.makeStream()
        self.analyzer = analyzer
        self.input = input
        inputFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: sampleRate, channels: 1, interleaved: true)
        results = Task { [weak self] in
            do {
                try await analyzer.start(inputSequence: stream)
                for try await result in transcriber.results { self?.deliver(result) }
            } catch {
                self?.analysisFailed(error)
            }
        }
        return TranscriptStore.SessionInfo(source: "Live (aural serve)", locale: Locale(identifier: language), model: name)
    }

    /// The analysis ended with an error: the client hears why, and the audio it sends from now on is dropped. A
    /// machine whose cores are all taken by live sessions refuses new ones (`LiveLoad`, which the server turns on)
    /// rather than letting every session fall behind.
    private func analysisFailed(_ error: Error) {
        let input = lock.withLock { () -> AsyncStream<AnalyzerInput>.Continuation? in
            defer { self.input = nil }
            return self.input
        }
        input?.finish()
        if let speechError = error as? SFSpeechError, speechError.code == .insufficientResources {
            settings.metrics?.liveSessionRefused()
            self.error(
                "This server is busy: \(Self.describe(error)) Try again in a few seconds, or connect to another replica.",
                code: "rate_limit_exceeded")
        } else {
            self.error("The transcription stopped: \(Self.describe(error))", code: "transcription_failed")
        }
    }

    /// Begins the history session of a client that asked for one, and tells it the session's number.
    private func beginHistory(_ info: TranscriptStore.SessionInfo) {
        guard let store = settings.history else { return }
        do {
            let recording = try HistoryRecording(store: store, info: info)
            lock.withLock { self.recording = recording }
            emit(["type": "aural.history.session", "session_id": recording.id.rawValue])
        } catch {
            historyFailed(error)
        }
    }

    private func historyFailed(_ error: TranscriptStoreError) {
        let text = [error.errorDescription, error.failureReason].compactMap { $0 }.joined(separator: " ")
        self.error("This session is no longer recorded in the history: \(text) The transcription goes on.", code: "history_failed")
    }

    /// A result as Realtime events: the first of an item announces it, and a final result completes it.
    private func deliver(_ result: SpeechTranscriber.Result) {
        let text = String(String(result.text.characters).drop(while: \.isWhitespace))
        let (current, isNew) = lock.withLock { () -> (String?, Bool) in
            if let item { return (item, false) }
            guard !text.isEmpty else { return (nil, false) }
            itemCounter += 1
            item = "item_\(itemCounter)"
            return (item, true)
        }
        guard let current else { return }
        if isNew {
            emit(["type": "input_audio_buffer.speech_started", "item_id": current, "audio_start_ms": Self.milliseconds(result.range.start)])
        }
        // The phrase's text goes out as one delta when it is final, as OpenAI sends whisper-1's: volatile words may
        // still change, and a delta cannot be taken back. Clients that asked for it get the volatile text apart.
        guard result.isFinal else {
            if settings.volatileText {
                emit(["type": "aural.transcription.volatile", "item_id": current, "content_index": 0, "text": text])
            }
            return
        }
        if let failure = lock.withLock({ recording })?.append(result) { historyFailed(failure) }
        let previous = lock.withLock { () -> String? in
            defer {
                previousItem = current
                item = nil
            }
            return previousItem
        }
        emit(["type": "input_audio_buffer.speech_stopped", "item_id": current, "audio_end_ms": Self.milliseconds(result.range.end)])
        emit(["type": "input_audio_buffer.committed", "item_id": current, "previous_item_id": previous ?? NSNull()])
        if !text.isEmpty {
            emit(["type": "conversation.item.input_audio_transcription.delta", "item_id": current, "content_index": 0, "delta": text])
        }
        emit(["type": "conversation.item.input_audio_transcription.completed", "item_id": current, "content_index": 0, "transcript": text])
    }

    private static func milliseconds(_ time: CMTime) -> Int {
        time.seconds.isFinite ? Int((time.seconds * 1000).rounded()) : 0
    }

    // MARK: Sending

    private func emit(_ event: [String: Any]) {
        var event = event
        let id: Int = lock.withLock {
            counter += 1
            return counter
        }
        event["event_id"] = "event_\(id)"
        guard let data = try? JSONSerialization.data(withJSONObject: event, options: [.withoutEscapingSlashes]) else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { return }
        if !send(data) { isClosed = true }
    }

    private func error(_ message: String, code: String, param: String? = nil) {
        emit(["type": "error", "error": ["type": "invalid_request_error", "code": code, "message": message, "param": param ?? NSNull(), "event_id": NSNull()] as [String: Any]])
    }

    private func sessionDescription(kind: String) -> [String: Any] {
        lock.withLock {
            [
                "type": kind, "object": "realtime.transcription_session",
                "audio": ["input": [
                    "format": ["type": "audio/pcm", "rate": Int(sampleRate)],
                    "transcription": ["model": modelName ?? "whisper-1", "language": language, "prompt": prompt ?? ""],
                    "turn_detection": ["type": "server_vad"],
                ] as [String: Any]],
            ]
        }
    }

    private static func describe(_ error: Error) -> String {
        let localized = error as? LocalizedError
        return [localized?.errorDescription, localized?.failureReason, localized?.recoverySuggestion].compactMap { $0 }.joined(separator: " ")
            .nonEmpty ?? "\(error)"
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
