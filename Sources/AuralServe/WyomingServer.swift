import AuralAudio
import AuralWhisper
import Foundation
import Glibc

/// Home Assistant's Wyoming protocol, the `asr` service, on a TCP port of its own: `describe` → `info`;
/// `transcribe`, `audio-start`, `audio-chunk`…, `audio-stop` → `transcript`. Each event is a JSON line, then
/// `data_length` bytes of JSON data and `payload_length` bytes of audio. Each connection runs on a thread of its
/// own; transcriptions share the HTTP server's models and slots.
final class WyomingServer: @unchecked Sendable {  // `listener` and `acceptor` are set in start, read in stop
    /// What a connection needs: the models, the slots, and how to transcribe.
    struct Services: Sendable {
        var models: ModelRegistry
        var admission: AdmissionControl
        var decodingOptions: DecodingOptions
        var maxAudioSeconds: Double
        var version: String
    }

    private let services: Services
    private var listener: Int32 = -1
    private let stopping = StopFlag()

    init(services: Services) {
        self.services = services
    }

    /// Listens on `host:port` (0 picks a free port) and accepts connections on a thread.
    /// - Throws: `ServerError.cannotListen`.
    func start(host: String, port: Int) throws -> Int {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let info = found else {
            throw ServerError.cannotListen(address: address)
        }
        defer { freeaddrinfo(found) }
        let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard socket >= 0, bind(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(socket, 16) == 0 else {
            if socket >= 0 { Glibc.close(socket) }
            throw ServerError.cannotListen(address: address)
        }
        listener = socket
        let thread = Thread { [self] in acceptLoop(socket) }
        thread.start()
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(bound.ss_family == sa_family_t(AF_INET6)
            ? withUnsafePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
            : withUnsafePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } })
    }

    /// Stops accepting; connections in progress finish their current event.
    func stop() {
        stopping.set()
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop(_ socket: Int32) {
        while !stopping.isSet {
            let client = accept(socket, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            var timeout = timeval(tv_sec: 60, tv_usec: 0)  // an idle client is dropped after a minute
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connection = WyomingConnection(socket: client, services: services)
            let thread = Thread { connection.run() }
            thread.stackSize = 8 << 20
            thread.start()
        }
        Glibc.close(socket)
    }
}
