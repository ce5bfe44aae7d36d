import CCivetWeb
import Foundation

/// civetweb's HTTP server, with one handler for every request: civetweb parses requests and frames, owns the
/// sockets and runs each request on one of its worker threads (never on Swift's cooperative pool), so a handler may
/// block while it transcribes.
final class HTTPServer: @unchecked Sendable {  // the context pointer is set once in start and freed once in stop
    /// What a request is answered with; called on a civetweb worker thread.
    typealias Handler = @Sendable (HTTPExchange) -> Void

    private let handler: Handler
    private let webSockets: [(path: String, route: WebSocketRoute)]
    private let lock = NSLock()
    private var context: OpaquePointer?
    private var webSocketBoxes: [Unmanaged<RouteBox>] = []

    /// - Parameters:
    ///   - webSockets: WebSocket endpoints, by path; other requests go to `handler`.
    init(webSockets: [(path: String, route: WebSocketRoute)] = [], handler: @escaping Handler) {
        self.webSockets = webSockets
        self.handler = handler
    }

    /// Listens on `host:port` (port 0 picks a free one) with `threads` worker threads.
    /// - Throws: `ServerError.cannotListen` when the address is taken or invalid.
    func start(host: String, port: Int, threads: Int, idleTimeoutSeconds: Int) throws {
        _ = Self.libraryReady
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let options = [
            "listening_ports", address,
            "num_threads", String(threads),
            "request_timeout_ms", String(idleTimeoutSeconds * 1000),
            "enable_keep_alive", "yes",
            "keep_alive_timeout_ms", String(idleTimeoutSeconds * 1000),
        ]
        var cOptions = options.map { strdup($0) } + [nil]
        defer { cOptions.forEach { free($0) } }
        var callbacks = mg_callbacks()
        callbacks.log_message = { _, _ in 1 }  // errors reach the client as responses; civetweb's lines would repeat them
        let started = cOptions.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                mg_start(&callbacks, nil, $0)
            }
        }
        guard let started else { throw ServerError.cannotListen(address: address) }
        let box = Unmanaged.passRetained(HandlerBox(handler))
        mg_set_request_handler(started, "/", { connection, data in
            guard let connection, let data else { return 500 }
            let box = Unmanaged<HandlerBox>.fromOpaque(data).takeUnretainedValue()
            let exchange = HTTPExchange(connection: connection)
            box.handler(exchange)
            return exchange.statusSent
        }, box.toOpaque())
        let boxes = webSockets.map { Self.register($0.route, at: $0.path, on: started) }
        lock.withLock {
            context = started
            retainedBox = box
            webSocketBoxes = boxes
        }
    }

    private var retainedBox: Unmanaged<HandlerBox>?

    /// The port the server listens on (the one picked when started with port 0), or nil when stopped.
    var port: Int? {
        lock.withLock {
            guard let context else { return nil }
            var ports = [mg_server_port](repeating: mg_server_port(), count: 4)
            let count = mg_get_server_ports(context, Int32(ports.count), &ports)
            return count > 0 ? Int(ports[0].port) : nil
        }
    }

    /// Stops listening and waits for the requests in progress to finish.
    func stop() {
        let (stopping, box, boxes) = lock.withLock { () -> (OpaquePointer?, Unmanaged<HandlerBox>?, [Unmanaged<RouteBox>]) in
            defer {
                context = nil
                retainedBox = nil
                webSocketBoxes = []
            }
            return (context, retainedBox, webSocketBoxes)
        }
        if let stopping { mg_stop(stopping) }
        box?.release()
        boxes.forEach { $0.release() }
    }

    /// civetweb's one-time set-up, with WebSocket support.
    private static let libraryReady: Void = { _ = mg_init_library(UInt32(MG_FEATURES_WEBSOCKET)) }()

    private final class HandlerBox: Sendable {
        let handler: Handler
        init(_ handler: @escaping Handler) { self.handler = handler }
    }
}

/// Why the server could not start.
public enum ServerError: Error, LocalizedError, Sendable {
    /// The address is in use, needs privileges, or is not an address of this machine.
    case cannotListen(address: String)
    /// An option's value cannot be used.
    case invalidOption(name: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .cannotListen(let address): return "Cannot listen on \(address)."
        case .invalidOption(let name, let reason): return "Invalid --\(name): \(reason)."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .cannotListen: return "Choose another --port (or stop the program using it), or a --host this machine has."
        case .invalidOption: return "Run 'aural serve --help' for the options."
        }
    }
}
