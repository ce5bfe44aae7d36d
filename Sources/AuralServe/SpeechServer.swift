import AuralHistory
import AuralWhisper
import CCivetWeb
import Foundation
import Speech

/// Speech to text over HTTP, as OpenAI's audio API: `aural serve`, and the same in an app.
///
/// ```swift
/// let server = SpeechServer(configuration: .init(port: 8080, defaultModel: "tiny.en"))  // default: the catalog's for files
/// try server.start()
/// // curl -F file=@speech.wav -F model=whisper-1 http://127.0.0.1:8080/v1/audio/transcriptions
/// server.stop()
/// ```
///
/// Routes: `POST /v1/audio/transcriptions` and `/v1/audio/translations` (OpenAI's fields and response formats,
/// `stream=true` as server-sent events), `GET /v1/realtime` (WebSocket), `GET /v1/models`, `GET /health`,
/// `GET /metrics` (Prometheus), the history (`GET /v1/history…`) and the web page at `/`. Each model is loaded once
/// and shared; transcriptions run in a bounded number of slots with a bounded queue. The server keeps no state
/// between requests but the history, which only records what a client asks it to (`history=true`).
public final class SpeechServer: Sendable {
    /// How a server listens, which model it answers with, and its limits.
    public struct Configuration: Sendable {
        /// The address to listen on (loopback by default: only this machine can connect).
        public var host: String
        /// The port; 0 picks a free one (see `SpeechServer.port`).
        public var port: Int
        /// Keys a client must send as `Authorization: Bearer KEY`; empty lets everyone in.
        public var apiKeys: Set<String>
        /// The port of Home Assistant's Wyoming protocol (on `host`, without API keys, as Wyoming has none); nil for
        /// none, 0 for a free one.
        public var wyomingPort: Int?
        /// The model `whisper-1`, `default` or no `model` field means (by default the catalog's model for files).
        public var defaultModel: String
        /// How the models compute.
        public var computeType: ComputeType
        /// Transcriptions that run at once.
        public var maxConcurrent: Int
        /// Transcriptions that may wait for a slot; more are refused with 429.
        public var queueLimit: Int
        /// The largest upload accepted, in bytes (413 past it).
        public var maxUploadBytes: Int
        /// The longest audio accepted, in seconds (400 past it).
        public var maxAudioSeconds: Double
        /// Seconds a connection may stay idle before it is closed.
        public var idleTimeoutSeconds: Int
        /// The engine's options that requests do not set (beam size and the like).
        public var decodingOptions: DecodingOptions
        /// Where uploads are kept while they are transcribed.
        public var uploadDirectory: URL
        /// The models' cache.
        public var modelManager: ModelManager
        /// The history database (a `TranscriptStore`) that transcriptions asking for it (`history=true`) are recorded
        /// in and the history routes read; nil keeps none, and those routes answer 404 `history_disabled`.
        public var history: URL?

        /// A configuration; every default is `aural serve`'s.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, apiKeys: Set<String> = [], wyomingPort: Int? = nil, defaultModel: String = ModelCatalog.standard.defaults[.files] ?? "base",
            computeType: ComputeType = .auto, maxConcurrent: Int = 1, queueLimit: Int = 16,
            maxUploadBytes: Int = 100_000_000, maxAudioSeconds: Double = 4 * 3600, idleTimeoutSeconds: Int = 60,
            decodingOptions: DecodingOptions = DecodingOptions(),
            uploadDirectory: URL = FileManager.default.temporaryDirectory, modelManager: ModelManager = .shared,
            history: URL? = nil
        ) {
            self.host = host
            self.port = port
            self.apiKeys = apiKeys
            self.wyomingPort = wyomingPort
            self.defaultModel = defaultModel
            self.computeType = computeType
            self.maxConcurrent = maxConcurrent
            self.queueLimit = queueLimit
            self.maxUploadBytes = maxUploadBytes
            self.maxAudioSeconds = maxAudioSeconds
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.decodingOptions = decodingOptions
            self.uploadDirectory = uploadDirectory
            self.modelManager = modelManager
            self.history = history
        }
    }

    /// The configuration the server was made with.
    public let configuration: Configuration
    let models: ModelRegistry
    let admission: AdmissionControl
    let metrics = ServerMetrics()
    let history: ServerHistory
    private let http: HTTPServer
    private let wyoming: WyomingServer
    private let wyomingPortBox = PortBox()
    private let stopping = StopFlag()
    private let inFlight = InFlightCount()
    private let memoryTrimmer = MemoryTrimmer()

    /// A server, not yet listening.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let cores = AvailableCores.count
        models = ModelRegistry(
            defaultModel: configuration.defaultModel, computeType: configuration.computeType,
            threadsPerTranscription: max(1, cores / max(1, configuration.maxConcurrent)), manager: configuration.modelManager)
        admission = AdmissionControl(slots: configuration.maxConcurrent, queueLimit: configuration.queueLimit)
        history = ServerHistory(url: configuration.history)
        let router = Router()
        let realtime = WebSocketRoute(
            refusal: { exchange in
                guard let server = router.server else { return .shuttingDown }
                return server.realtimeRefusal(exchange)
            },
            makePeer: { request, send in
                guard let server = router.server else { return ClosedPeer() }
                let optIns = (try? ClientOptIns(query: request.query)) ?? ClientOptIns()  // checked by the refusal
                return RealtimeSession(
                    settings: .init(
                        models: server.models, computeType: configuration.computeType,
                        modelManager: configuration.modelManager, volatileText: optIns.volatileText,
                        history: server.history.store(for: optIns), metrics: server.metrics),
                    send: send)
            },
            idleTimeoutSeconds: configuration.idleTimeoutSeconds)
        wyoming = WyomingServer(services: .init(
            models: models, admission: admission, decodingOptions: configuration.decodingOptions,
            maxAudioSeconds: configuration.maxAudioSeconds, version: Self.version))
        http = HTTPServer(webSockets: [(path: "/v1/realtime", route: realtime)]) { router.server?.handle($0) }
        router.server = self
    }

    /// Loads the default model and starts listening.
    /// - Throws: `ServerError` when the address cannot be used or an option is out of range, and the model's
    ///   error (not installed, damaged) when the default model cannot load.
    public func start() throws {
        guard (0...65535).contains(configuration.port) else {
            throw ServerError.invalidOption(name: "port", reason: "\(configuration.port) is not a port (0 to 65535)")
        }
        guard configuration.maxConcurrent >= 1 else {
            throw ServerError.invalidOption(name: "max-concurrent", reason: "must be at least 1")
        }
        _ = try configuration.modelManager.folder(for: configuration.defaultModel)
        do {
            _ = try models.transcriber(for: nil)
        } catch let error as APIError {
            throw ServerError.invalidOption(name: "model", reason: error.message)
        }
        try history.open()
        // Requests run on many threads (civetweb's workers, a thread per transcription), and glibc gives each its own
        // malloc arena, which keeps the tens of megabytes a transcription freed: peak memory grew with the threads
        // that had worked (docs/benchmarks.md, 2026-12-06 22:30). Two arenas give the same throughput.
        mallopt(M_ARENA_MAX, 2)
        memoryTrimmer.start()
        // Live sessions that would make every session fall behind are refused (each client gets an error event).
        LiveLoad.shared.refusesWhenFull = true
        try http.start(
            host: configuration.host, port: configuration.port,
            threads: configuration.maxConcurrent + configuration.queueLimit + 8,
            idleTimeoutSeconds: configuration.idleTimeoutSeconds)
        if let wyomingPort = configuration.wyomingPort {
            guard (0...65535).contains(wyomingPort) else {
                http.stop()
                throw ServerError.invalidOption(name: "wyoming", reason: "\(wyomingPort) is not a port (0 to 65535)")
            }
            do {
                wyomingPortBox.value = try wyoming.start(host: configuration.host, port: wyomingPort)
            } catch {
                http.stop()
                throw error
            }
        }
    }

    /// The port the Wyoming protocol listens on, or nil when it does not.
    public var wyomingPort: Int? { wyomingPortBox.value }

    /// The version `/v1/models` and Wyoming's `info` report.
    public static let version = "0.1.0"

    /// The port it listens on, or nil when not started.
    public var port: Int? { http.port }

    /// Stops: new requests get 503, queued ones too, and the requests in progress finish and are answered (for up to
    /// `drainSeconds`) before the listener closes and this returns. civetweb drops writes once it is stopping, so
    /// the server drains itself first.
    public func stop(drainSeconds: Double = 300) {
        stopping.set()
        wyoming.stop()
        admission.close()
        inFlight.waitUntilIdle(timeout: drainSeconds)
        http.stop()
        memoryTrimmer.stop()
    }

    /// Answers one request (on a civetweb worker thread).
    func handle(_ exchange: HTTPExchange) {
        let route = Self.route(exchange.path)
        inFlight.enter()
        defer {
            metrics.countRequest(route: route, status: Int(exchange.statusSent))
            inFlight.leave()
        }
        if stopping.isSet {
            exchange.respond(APIError.shuttingDown)
            return
        }
        if route == "/health" {
            exchange.respond(status: 200, contentType: "text/plain", body: Data("ok\n".utf8))
            return
        }
        if let asset = WebAsset.all[route] {  // the page holds no secret: it asks for the key when the server needs one
            asset.serve(to: exchange)
            return
        }
        guard isAuthorized(exchange) else {
            exchange.respond(APIError.unauthorized)
            return
        }
        if Self.historyRoutes.contains(route) {
            answerHistory(exchange, route: route)
            return
        }
        switch (route, exchange.method) {
        case ("/metrics", "GET"):
            let load = admission.load
            exchange.respond(
                status: 200, contentType: "text/plain; version=0.0.4",
                body: Data(metrics.render(running: load.running, waiting: load.waiting).utf8))
        case ("/v1/models", "GET"):
            exchange.respond(json: ModelList(data: models.installedModels().map { ModelList.Model(id: $0.name, languages: $0.languages) }))
        case ("/v1/audio/transcriptions", "POST"), ("/v1/audio/translations", "POST"):
            do {
                _ = try ClientOptIns(query: exchange.query)  // a bad opt-in is refused before the upload is read
                transcribe(exchange, task: route == "/v1/audio/translations" ? .translate : .transcribe)
            } catch {
                exchange.respond(error)
            }
        case ("/metrics", _), ("/v1/models", _):
            exchange.respond(APIError.methodNotAllowed(method: exchange.method, path: exchange.path, allowed: "GET"))
        case ("/v1/audio/transcriptions", _), ("/v1/audio/translations", _):
            exchange.respond(APIError.methodNotAllowed(method: exchange.method, path: exchange.path, allowed: "POST"))
        default:
            exchange.respond(APIError.notFound(method: exchange.method, path: exchange.path))
        }
    }

    /// The path's route as the metrics name it: known routes as they are, anything else as "other".
    static func route(_ path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let known = ["/health", "/metrics", "/v1/models", "/v1/audio/transcriptions", "/v1/audio/translations"]
        if known.contains(trimmed) || WebAsset.all[trimmed] != nil { return trimmed }
        return historyRoute(trimmed)?.route ?? "other"
    }

    /// Why a WebSocket to `/v1/realtime` is refused, or nil to accept it. A browser cannot set `Authorization` on a
    /// WebSocket, so the key may also come as OpenAI's browser subprotocol, `openai-insecure-api-key.KEY`.
    func realtimeRefusal(_ exchange: HTTPExchange) -> APIError? {
        if stopping.isSet { return .shuttingDown }
        guard isAuthorized(exchange, subprotocolKey: true) else { return .unauthorized }
        do {
            _ = try ClientOptIns(query: exchange.query)
            return nil
        } catch {
            return error
        }
    }

    private func isAuthorized(_ exchange: HTTPExchange, subprotocolKey: Bool = false) -> Bool {
        if configuration.apiKeys.isEmpty { return true }
        if subprotocolKey, let key = BrowserAPIKey.fromSubprotocols(exchange.header("Sec-WebSocket-Protocol")) {
            return configuration.apiKeys.contains(key)
        }
        guard let value = exchange.header("Authorization"), value.lowercased().hasPrefix("bearer ") else { return false }
        return configuration.apiKeys.contains(String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
    }

    /// `GET /v1/models`' body, as OpenAI lists models, each with the languages it transcribes (for the web page).
    struct ModelList: Encodable {
        struct Model: Encodable {
            var id: String
            var languages: [String]
            var object = "model"
            var created = 0
            var owned_by = "aural"
        }
        var object = "list"
        var data: [Model]
    }

    /// Lets the HTTP handler reach the server it is made before.
    private final class Router: @unchecked Sendable {  // set once, in init, before the server can start
        weak var server: SpeechServer?
    }
}

/// The peer of a connection that opens while the server is going away: it ignores everything.
private final class ClosedPeer: WebSocketRoute.Peer {
    func open() {}
    func receive(_ message: Data) {}
    func close() {}
}

/// A port number set once at start, read from any thread.
final class PortBox: @unchecked Sendable {  // `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: Int?
    var value: Int? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A flag that is set once, read from any thread.
final class StopFlag: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Requests being handled, so that stopping can wait for them.
final class InFlightCount: @unchecked Sendable {  // `count` is guarded by `condition`
    private let condition = NSCondition()
    private var count = 0

    func enter() {
        condition.withLock { count += 1 }
    }

    func leave() {
        condition.withLock {
            count -= 1
            condition.broadcast()
        }
    }

    /// Waits until no request is being handled, or `timeout` seconds pass.
    func waitUntilIdle(timeout: Double) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.withLock {
            while count > 0 && condition.wait(until: deadline) {}
        }
    }
}
