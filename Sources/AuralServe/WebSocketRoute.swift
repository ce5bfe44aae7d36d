import CCivetWeb
import Foundation

/// A WebSocket endpoint on civetweb: civetweb does the handshake and the framing; each connection gets a peer that
/// receives whole text messages (fragments joined) on the connection's worker thread and may send from any thread.
struct WebSocketRoute: Sendable {
    /// One side of a connection, made when it opens.
    protocol Peer: AnyObject, Sendable {
        /// The connection is ready: a good moment to greet.
        func open()
        /// One whole text message.
        func receive(_ message: Data)
        /// The connection has closed: send nothing more.
        func close()
    }

    /// Whether to accept a connection, from its request (an API key, say); nil accepts.
    var refusal: @Sendable (HTTPExchange) -> APIError?
    /// Makes the peer of a new connection from its request (its query, say), with the function that sends it a text
    /// message (false once gone).
    var makePeer: @Sendable (_ request: HTTPExchange, _ send: @escaping @Sendable (Data) -> Bool) -> any Peer
    /// Seconds without a message from the client (pings included) after which the server closes the connection;
    /// nil never does.
    var idleTimeoutSeconds: Int?
}

extension HTTPServer {
    /// The per-connection state civetweb keeps for us: the peer and a message being reassembled from fragments.
    final class WebSocketConnection: @unchecked Sendable {  // `fragments`: the worker thread's; the rest under `lock`
        let peer: any WebSocketRoute.Peer
        var fragments = Data()
        /// Where the peer's messages are handled, in order: off civetweb's worker thread, whose stack is small.
        let queue = DispatchQueue(label: "aural.websocket")
        private let lock = NSLock()
        private var lastMessage = ContinuousClock.now
        private var isClosed = false
        private var idleTimer: DispatchSourceTimer?

        init(peer: any WebSocketRoute.Peer) { self.peer = peer }

        /// A message arrived: the idle clock starts again.
        func noteMessage() { lock.withLock { lastMessage = .now } }

        /// Closes the connection (close frame 1008, "idle") once no message has come for `seconds`: a client that
        /// went quiet without closing (a laptop asleep, a tab left open) does not hold a session and a thread.
        func closeWhenIdle(after seconds: Int, connection: SendableConnection) {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let limit = Duration.seconds(seconds)
            timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(max(1, seconds / 4)))
            timer.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.withLock {  // civetweb frees the connection only after `markClosed` returns
                    guard !self.isClosed, ContinuousClock.now - self.lastMessage >= limit else { return }
                    self.isClosed = true
                    var payload: [UInt8] = [0x03, 0xF0] + Array("idle".utf8)  // status 1008, policy violation
                    mg_websocket_write(
                        connection.pointer, Int32(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE), &payload, payload.count)
                }
            }
            lock.withLock { idleTimer = timer }
            timer.resume()
        }

        /// The connection is gone: nothing may touch it any more.
        func markClosed() {
            lock.withLock {
                isClosed = true
                idleTimer?.cancel()
            }
        }
    }

    /// A connection pointer that may cross threads: civetweb's `mg_websocket_write` locks the connection itself.
    struct SendableConnection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The largest message a connection may send; a larger one closes it.
    static let maxMessageBytes = 16 << 20

    /// Registers `route` at `path` on a started context.
    static func register(_ route: WebSocketRoute, at path: String, on context: OpaquePointer) -> Unmanaged<RouteBox> {
        let box = Unmanaged.passRetained(RouteBox(route))
        // The refusal runs as civetweb's authorization handler, before the handshake, where a response can be sent.
        mg_set_auth_handler(context, path, { connection, data in
            guard let connection, let data else { return 0 }
            let route = Unmanaged<RouteBox>.fromOpaque(data).takeUnretainedValue().route
            let exchange = HTTPExchange(connection: connection)
            guard let refusal = route.refusal(exchange) else { return 1 }
            exchange.refuseUpgrade(refusal)
            return 0
        }, box.toOpaque())
        mg_set_websocket_handler(
            context, path,
            { _, _ in 0 },  // accepted: the authorization handler has let it through
            { connection, data in
                guard let connection, let data else { return }
                let route = Unmanaged<RouteBox>.fromOpaque(data).takeUnretainedValue().route
                let target = SendableConnection(pointer: connection)
                let peer = route.makePeer(HTTPExchange(connection: connection)) { message in
                    message.withUnsafeBytes { bytes in
                        mg_websocket_write(
                            target.pointer, Int32(MG_WEBSOCKET_OPCODE_TEXT), bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                            bytes.count)
                    } > 0
                }
                let state = WebSocketConnection(peer: peer)
                mg_set_user_connection_data(connection, Unmanaged.passRetained(state).toOpaque())
                if let idleSeconds = route.idleTimeoutSeconds { state.closeWhenIdle(after: idleSeconds, connection: target) }
                peer.open()
            },
            { connection, flags, bytes, length, _ in
                guard let connection, let state = mg_get_user_connection_data(connection) else { return 0 }
                let socket = Unmanaged<WebSocketConnection>.fromOpaque(state).takeUnretainedValue()
                socket.noteMessage()
                let opcode = Int(flags) & 0x0F
                if opcode == Int(MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE) { return 0 }
                if opcode == Int(MG_WEBSOCKET_OPCODE_PING) {  // civetweb leaves the pong to us
                    mg_websocket_write(connection, Int32(MG_WEBSOCKET_OPCODE_PONG), bytes, length)
                    return 1
                }
                guard opcode == Int(MG_WEBSOCKET_OPCODE_TEXT) || opcode == Int(MG_WEBSOCKET_OPCODE_BINARY)
                    || opcode == Int(MG_WEBSOCKET_OPCODE_CONTINUATION)
                else { return 1 }  // a pong
                if let bytes, length > 0 { socket.fragments.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length) }
                if socket.fragments.count > HTTPServer.maxMessageBytes { return 0 }  // a message this large is not Realtime's
                guard Int(flags) & 0x80 != 0 else { return 1 }  // more fragments follow
                let message = socket.fragments
                socket.fragments = Data()
                let peer = socket.peer
                socket.queue.async { peer.receive(message) }
                return 1
            },
            { connection, _ in
                guard let connection, let state = mg_get_user_connection_data(connection) else { return }
                let socket = Unmanaged<WebSocketConnection>.fromOpaque(state)
                socket.takeUnretainedValue().markClosed()
                socket.takeUnretainedValue().peer.close()
                socket.release()
            },
            box.toOpaque())
        return box
    }

    final class RouteBox: Sendable {
        let route: WebSocketRoute
        init(_ route: WebSocketRoute) { self.route = route }
    }
}
